import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Actor } from "../modules/access/actor.js";
import { inQueryString } from "./http-params.js";
import type { RateLimitState } from "./limits/rate-limiter.js";

/**
 * The HTTP around an API answer that clients, browsers and shared caches rely on: caching headers
 * (Cache-Control, a weak ETag from the data versions, 304), CORS for browser apps on other origins,
 * and the rate-limit header fields.
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
  request: FastifyRequest,
  reply: FastifyReply,
  actor: Actor,
  versions: ReadonlyMap<string, number | null> | undefined,
): boolean {
  if (actor.kind === "app") {
    reply.header("cache-control", "private, no-store");
    return false;
  }
  if (!inQueryString(request) || !versions) return false;
  const etag = etagOf(versions);
  reply.header("cache-control", `public, max-age=${publicMaxAgeSeconds}`).header("etag", etag);
  const asked = request.headers["if-none-match"];
  if (!asked) return false;
  // Weak comparison (RFC 9110 §13.1.2): any listed tag equal to ours, W/ or not, or "*".
  return asked
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag.slice(2));
}

/** Answers 304 Not Modified: the validators and caching headers already set, no body. */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}

// What a browser app may read of an answer: the budget, the validator and the id to quote.
const exposedHeaders = [
  "etag",
  "retry-after",
  "x-request-id",
  "ratelimit",
  "ratelimit-policy",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-cost",
].join(", ");

/**
 * CORS for `/api/graphql` in `scope`: any origin may call it, without credentials (a bearer token
 * in Authorization, never cookies: the API reads no cookie, so the dashboard's session and its CSRF
 * rules are untouched). A preflight answers 204 and may be reused for a day.
 */
export function registerCors(scope: FastifyInstance, url: string): void {
  scope.addHook("onRequest", (_request, reply, done) => {
    // The answer depends on these request headers, so a shared cache must key on them too.
    reply
      .header("access-control-allow-origin", "*")
      .header("access-control-expose-headers", exposedHeaders)
      .header("vary", "accept, accept-encoding, authorization");
    done();
  });
  scope.options(url, (_request, reply) =>
    reply
      .code(204)
      .header("access-control-allow-methods", "GET, POST, OPTIONS")
      .header("access-control-allow-headers", "authorization, content-type, accept")
      .header("access-control-max-age", "86400")
      .header("vary", "origin")
      .send(),
  );
}

/**
 * The budget as header fields: GitHub's `x-ratelimit-*` and the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): the policy (quota q per window w seconds) and what is
 * left of it (r) with the seconds until it resets (t).
 */
export function setRateLimitHeaders(reply: FastifyReply, budget: RateLimitState, points: number): void {
  // resetAt is rounded up to a whole second, so a window that began this instant would read 3601.
  const secondsLeft = Math.min(3600, Math.max(0, budget.resetAt - Math.floor(Date.now() / 1000)));
  const remaining = String(budget.remaining);
  const fixed = fieldsOfLimit(budget.limit);
  reply
    .header("x-ratelimit-limit", fixed.limit)
    .header("x-ratelimit-remaining", remaining)
    .header("x-ratelimit-reset", String(budget.resetAt))
    .header("x-ratelimit-cost", String(points))
    .header("ratelimit-policy", fixed.policy)
    .header("ratelimit", `"hourly";r=${remaining};t=${secondsLeft}`);
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
