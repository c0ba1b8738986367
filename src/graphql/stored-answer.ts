import { closingBytes, negotiateEncoding, openStream } from "../http/compression.js";
import type { RequestHead } from "../http/header-values.js";
import type { Actor } from "../modules/access/actor.js";
import type { AnswerHeaders } from "./answer-headers.js";
import type { CachedAnswer } from "./cache/response-cache.js";
import type { RequestBudget } from "./context.js";
import { applyCaching } from "./http-caching.js";
import { extensionsTail } from "./http-extensions.js";

/**
 * The two parts in which a cached answer goes out, whichever way its request came in (the Fastify
 * route or the hit lane): the stored bytes as they are, then this request's extensions. Decoding
 * and re-encoding a large page cost more than the rest of a hit, and so did copying it into one
 * buffer. The caching fields are set on `headers` (and Content-Encoding when compressed); undefined
 * when the request's If-None-Match names the answer already, which a 304 answers.
 */
export async function storedAnswerParts(
  request: RequestHead,
  headers: AnswerHeaders,
  actor: Actor,
  cost: number,
  budget: RequestBudget,
  hit: CachedAnswer,
): Promise<[head: Buffer, tail: Buffer] | undefined> {
  if (applyCaching({ request, headers }, actor, hit.versions)) return undefined;
  const tail = extensionsTail(cost, budget.points, budget, true);
  const encoding = negotiateEncoding(request);
  if (encoding) {
    // Compressed once per entry and coding; each hit only compresses (stores) its own tail.
    hit.encoded[encoding] ??= openStream(hit.body, encoding);
    const open = await hit.encoded[encoding];
    const closing = closingBytes(open, tail);
    if (closing) {
      headers.set("content-encoding", encoding);
      return [open.prefix, closing];
    }
  }
  return [hit.body, tail];
}
