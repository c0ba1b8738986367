import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyReply, FastifyRequest } from "fastify";
import { bindCommitMark } from "../db/transaction.js";
import { ErrorCode } from "../errors.js";
import type { Actor } from "../modules/access/actor.js";
import type { StoredAnswer } from "../modules/idempotency/idempotency.service.js";
import type { Services } from "../services.js";
import { canonicalJson } from "./cache/cache-key.js";
import type { Operation } from "./execution.js";
import { type Exchange, Refusal, sendRaw } from "./http-answers.js";
import { graphqlResponse, json } from "./http-params.js";

// The Idempotency-Key header of the IETF httpapi draft on `POST /api/graphql` mutations
// (docs/guides/12-idempotency.md): the same key and body within 24 hours answer the first answer
// again (`Idempotent-Replayed: true`) without running; another body answers 422, a second request
// while the first runs 409. Queries change nothing, so a key on a query is ignored.

/** How long a repeat waits for a run under way to finish, and how often it looks. */
const maxWaitMs = 1_000;
const waitStepMs = 50;

/** The draft's header, and the one this API adds to a replayed answer. */
const keyHeader = "idempotency-key";
const replayedHeader = "idempotent-replayed";

// A UUID, a ULID or base64 fits; no space or comma, so two header lines that Node joined into one
// ("a, b") are refused rather than read as one key. The draft sends it as a structured-field
// string ("…"), which is accepted too.
const keyPattern = /^[A-Za-z0-9._~:+/=-]{1,255}$/;

/** A mutation request's key: whose key space, the key, and the request's fingerprint. */
export interface IdempotencyKey {
  scope: string;
  key: string;
  fingerprint: string;
}

/**
 * The key of a mutation request, undefined when it carries none or is not a mutation; BAD_REQUEST
 * (400) for a key that is empty, too long, or has characters outside the documented set.
 */
export function idempotencyKeyOf(
  request: FastifyRequest,
  actor: Actor,
  { analysis, params, version }: Operation,
): IdempotencyKey | undefined {
  const header = request.headers[keyHeader];
  if (header === undefined || analysis.operationType !== "mutation") return undefined;
  // Every mutation needs an app's permission: a caller without a token changes nothing, and has no
  // key space of its own (an IP is not one).
  if (actor.kind !== "app") return undefined;
  const raw = Array.isArray(header) ? header.join(", ") : header;
  const key = raw.length > 1 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!keyPattern.test(key)) {
    throw new Refusal(
      ErrorCode.BAD_REQUEST,
      "Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 . _ ~ : + / = - (a UUID fits)",
      { header: "Idempotency-Key" },
    );
  }
  // The same body: the same document, operation and variables (their key order and the JSON's
  // whitespace aside), in the same API version, whose answer may be shaped otherwise. The project a
  // mutation writes is in its input, so a key reused for another project is another body.
  const fingerprint = createHash("sha256")
    .update(
      JSON.stringify([
        version.name,
        params.query,
        params.operationName ?? null,
        canonicalJson(params.variables),
      ]),
    )
    .digest("base64url");
  return { scope: `app:${actor.appId}`, key, fingerprint };
}

/**
 * Runs `execute` once per key: the first request runs it and its answer is kept; a repeat gets
 * that answer; a conflicting or concurrent one is refused. An answer of 5xx is not kept: the
 * mutation's changes were rolled back (a timeout, the database gone), so the key is released for
 * the retry, unless one of its transactions had committed.
 */
export async function answerOnce(
  services: Services,
  exchange: Exchange,
  actor: Actor,
  { scope, key, fingerprint }: IdempotencyKey,
  execute: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  // Each new key is a row kept for a day: their number per app and hour is bounded apart from the
  // points, which a cheap mutation spends slowly. Checked before the row is written, so a caller
  // past it costs a read, not a write.
  const limit = services.config.limits.idempotencyKeysPerHour;
  let retryAfterSeconds = 0;
  const admitNew = async () => {
    const allowance = await services.rateLimiter.consume(`idempotency:${scope}`, 1, limit);
    retryAfterSeconds = allowance.retryAfterSeconds;
    return allowance.allowed;
  };
  let claim = await services.idempotency.claim(scope, key, fingerprint, admitNew);
  // A run stores its answer just after the answer went out: a repeat sent the moment that answer
  // arrived waits for it (up to a second) rather than hearing 409 for a run that is over.
  for (let waited = 0; claim.outcome === "in-progress" && waited < maxWaitMs; waited += waitStepMs) {
    await sleep(waitStepMs);
    claim = await services.idempotency.claim(scope, key, fingerprint, admitNew);
  }
  if (claim.outcome === "mismatch") {
    throw new Refusal(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      "This Idempotency-Key was used with another request body; use a new key for a new request",
    );
  }
  if (claim.outcome === "in-progress") {
    exchange.headers.set("retry-after", "1");
    throw new Refusal(
      ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      "A request with this Idempotency-Key is still running; retry once it has answered",
    );
  }
  if (claim.outcome === "over-allowance") {
    exchange.headers.set("retry-after", String(retryAfterSeconds));
    throw new Refusal(
      ErrorCode.RATE_LIMITED,
      `More than ${limit} new Idempotency-Keys in an hour; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  if (claim.outcome === "answer-lost") {
    throw new Refusal(
      ErrorCode.IDEMPOTENCY_ANSWER_LOST,
      "The first request with this Idempotency-Key made its changes, but its answer was not kept (its " +
        "server stopped or failed first); it is not run again. Read what it wrote to learn its outcome",
    );
  }
  if (claim.outcome === "replay") return replay(exchange, claim.answer);
  const { run } = claim;
  // Each write of the run marks the key inside its own transaction: if the process dies after a
  // COMMIT and before the answer is stored, the retry is told so rather than run the mutation again.
  bindCommitMark(actor, (trx) => services.idempotency.markCommitted(trx, run));
  let kept: StoredAnswer | undefined;
  exchange.keep = (status, body) => {
    exchange.keep = undefined;
    if (status < 500) kept = { status, media: exchange.media, body: body.toString() };
  };
  try {
    return await execute();
  } finally {
    exchange.keep = undefined;
    // The answer is sent already: a failure to store it is logged, and the lock ends on its own.
    await services.idempotency
      .finish(run, kept)
      .catch((error: unknown) =>
        services.logger.error({ err: error }, "could not store an idempotency key's answer"),
      );
  }
}

/** Sends a kept answer again, byte for byte, with this request's own budget fields. */
function replay(exchange: Exchange, answer: StoredAnswer): FastifyReply {
  exchange.headers.set(replayedHeader, "true");
  const media = answer.media === graphqlResponse ? graphqlResponse : json;
  return sendRaw({ ...exchange, media }, answer.status, answer.body);
}
