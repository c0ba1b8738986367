import type { FastifyInstance, FastifyReply } from "fastify";
import type { RequestHead } from "../http/header-values.js";
import type { Actor } from "../modules/access/actor.js";
import { AnswerHeaders } from "./answer-headers.js";
import type { Exchange } from "./http-answers.js";
import { inQueryString } from "./http-params.js";
import type { RateLimitState } from "./limits/rate-limiter.js";

/**
 * The HTTP around an API answer that clients, browsers and shared caches rely on: caching headers
 * (Cache-Control, a weak ETag from the data versions, 304), the CORS preflight for browser apps on
 * other origins, and the rate-limit header fields.
 */

// How long a browser or CDN may reuse a token-less GET answer without asking again. Writes reach
// the server's own cache at once; this bounds how stale a shared cache's copy may be.
const publicMaxAgeSeconds = 10;

/**
 * The weak validator of an answer: the data version of every project it read, in the order read.
 * The same URL at the same versions is the same data (the extensions, counting this caller's
 * budget, differ: hence weak).
 */
function etagOf(versions: ReadonlyMap<string, number | null>): string {
  let tag = 'W/"v';
  for (const [id, version] of versions) tag += `-${id}.${version ?? "none"}`;
  return `${tag}"`;
}

/**
 * Sets Cache-Control (and ETag for a public GET answer computed at known versions); true when the
 * request's If-None-Match already names that answer, so a 304 without a body is enough.
 */
export function applyCaching(
  { request, headers }: { request: RequestHead; headers: AnswerHeaders },
  actor: Actor,
  versions: ReadonlyMap<string, number | null> | undefined,
): boolean {
  if (actor.kind === "app") {
    headers.set("cache-control", "private, no-store");
    return false;
  }
  if (!inQueryString(request) || !versions) return false;
  const etag = etagOf(versions);
  headers.set("cache-control", `public, max-age=${publicMaxAgeSeconds}`).set("etag", etag);
  return namesTag(request.headers["if-none-match"], etag);
}

/**
 * Whether an If-None-Match field names the weak tag `etag` (`W/"…"`), by weak comparison (RFC 9110
 * §13.1.2): any listed tag equal to it, W/ or not, or "*".
 */
export function namesTag(asked: string | undefined, etag: string): boolean {
  if (!asked) return false;
  return asked
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag.slice(2));
}

/**
 * The caching fields of an introspection answer (src/graphql/introspection/), which changes only
 * with the schema: every caller may keep it and revalidate it with If-None-Match, over POST too.
 * Shared caches may keep a token-less GET's as they keep other public answers; an app's is its own.
 */
export function applyIntrospectionCaching(
  { request, headers }: { request: RequestHead; headers: AnswerHeaders },
  actor: Actor,
  etag: string,
): void {
  let policy = "no-cache";
  if (actor.kind === "app") policy = "private, no-cache";
  else if (inQueryString(request)) policy = `public, max-age=${publicMaxAgeSeconds}`;
  headers.set("cache-control", policy).set("etag", etag);
}

/** Answers 304 Not Modified: the validators and caching headers already set, no body. */
export function sendNotModified({ reply, headers }: Exchange): FastifyReply {
  return headers.applyTo(reply).code(304).send();
}

/**
 * The CORS preflight of `url` in `scope`: any origin may call it, without credentials (the fields
 * every answer carries are in answer-headers.ts). A preflight answers 204 and may be reused for a day.
 */
export function registerPreflight(scope: FastifyInstance, url: string): void {
  scope.options(url, (_request, reply) =>
    new AnswerHeaders()
      .set("access-control-allow-methods", "GET, POST, OPTIONS")
      // If-None-Match: a browser app revalidates an introspection answer it keeps itself;
      // Idempotency-Key: it retries a mutation safely (idempotency.ts); Eventgraph-Version: it
      // chooses the API version (versions/).
      .set(
        "access-control-allow-headers",
        "authorization, content-type, accept, if-none-match, idempotency-key, eventgraph-version",
      )
      .set("access-control-max-age", "86400")
      .set("vary", "origin")
      .applyTo(reply)
      .code(204)
      .send(),
  );
}

/**
 * The budget as header fields: GitHub's `x-ratelimit-*` and the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): the policy (quota q per window w seconds) and what is
 * left of it (r) with the seconds until it resets (t).
 */
export function setRateLimitHeaders(headers: AnswerHeaders, budget: RateLimitState, points: number): void {
  // resetAt is rounded up to a whole second, so a window that began this instant would read 3601.
  const secondsLeft = Math.min(3600, Math.max(0, budget.resetAt - Math.floor(Date.now() / 1000)));
  const remaining = String(budget.remaining);
  const fixed = fieldsOfLimit(budget.limit);
  headers
    .set("x-ratelimit-limit", fixed.limit)
    .set("x-ratelimit-remaining", remaining)
    .set("x-ratelimit-reset", String(budget.resetAt))
    .set("x-ratelimit-cost", String(points))
    .set("ratelimit-policy", fixed.policy)
    .set("ratelimit", `"hourly";r=${remaining};t=${secondsLeft}`);
}

// The fields that depend on the limit alone: there are two limits (apps, public), so the strings
// are built once rather than on every answer.
const limitFields = new Map<number, { limit: string; policy: string }>();
function fieldsOfLimit(limit: number): { limit: string; policy: string } {
  let fields = limitFields.get(limit);
  if (!fields) {
    fields = { limit: String(limit), policy: `"hourly";q=${limit};w=3600` };
    if (limitFields.size < 64) limitFields.set(limit, fields);
  }
  return fields;
}
