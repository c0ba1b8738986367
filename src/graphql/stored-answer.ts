import {
  closingBytes,
  type Encoding,
  negotiateEncoding,
  type OpenStream,
  openStream,
} from "../http/compression.js";
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
  return partsOf(request, headers, hit, extensionsTail(cost, budget.points, budget, true));
}

/** Stored bytes (and their compressed forms, made on first use) as they are sent before a `tail`. */
export interface StoredBytes {
  body: Buffer;
  /** Per content coding, the body compressed once, on the first request that asks for it. */
  encoded: Partial<Record<Encoding, Promise<OpenStream>>>;
}

/**
 * The stored bytes in the coding `request` accepts, then this request's `tail`, encoded alike
 * (Content-Encoding set on `headers` when compressed).
 */
export async function partsOf(
  request: RequestHead,
  headers: AnswerHeaders,
  stored: StoredBytes,
  tail: Buffer,
): Promise<[head: Buffer, tail: Buffer]> {
  const encoding = negotiateEncoding(request);
  if (encoding) {
    // Compressed once per entry and coding; each hit only compresses (stores) its own tail.
    stored.encoded[encoding] ??= openStream(stored.body, encoding);
    const open = await stored.encoded[encoding];
    const closing = closingBytes(open, tail);
    if (closing) {
      headers.set("content-encoding", encoding);
      return [open.prefix, closing];
    }
  }
  return [stored.body, tail];
}
