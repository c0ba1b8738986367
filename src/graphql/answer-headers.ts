import type { FastifyReply } from "fastify";

// What a browser app may read of an answer: the budget, the validator, the id to quote, whether a
// keyed mutation's answer was replayed (idempotency.ts), and the API version that answered with
// what of the request is going away (versions/deprecations.ts).
const exposedHeaders = [
  "etag",
  "eventgraph-version",
  "deprecation",
  "sunset",
  "link",
  "idempotent-replayed",
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
 * The header fields of one answer of the API, gathered as a flat `[name, value, …]` list while the
 * request is checked (CORS, the budget, caching) and written once when it is answered: a stored or
 * executed answer hands the list to `writeHead` as it is (http-answers.ts, sendInTwo); an answer
 * Fastify sends (a refusal, a dry run) gets the fields on its reply (`applyTo`). The hook that set
 * the CORS fields and the object Fastify merged for `writeHead` were a tenth of a small cache hit's
 * instructions. Names are lower
 * case, each present once.
 */
export class AnswerHeaders {
  // Every answer may be read by a browser app on any origin, without credentials: a bearer token in
  // Authorization, never cookies (the API reads none, so the dashboard's session and its CSRF rules
  // are untouched). The answer depends on these request headers, so a shared cache keys on them too.
  readonly fields: string[] = [
    "access-control-allow-origin",
    "*",
    "access-control-expose-headers",
    exposedHeaders,
    "vary",
    "accept, accept-encoding, authorization, eventgraph-version",
  ];

  /** Sets `name` (lower case) to `value`, replacing the value it had. */
  set(name: string, value: string): this {
    const at = this.indexOf(name);
    if (at < 0) this.fields.push(name, value);
    else this.fields[at + 1] = value;
    return this;
  }

  has(name: string): boolean {
    return this.indexOf(name) >= 0;
  }

  /** Sets every field on a reply that Fastify sends. */
  applyTo(reply: FastifyReply): FastifyReply {
    const { fields } = this;
    for (let i = 0; i < fields.length; i += 2) reply.header(fields[i] as string, fields[i + 1]);
    return reply;
  }

  private indexOf(name: string): number {
    const { fields } = this;
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return i;
    return -1;
  }
}
