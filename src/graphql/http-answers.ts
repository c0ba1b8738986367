import type { ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLFormattedError } from "graphql";
import { databaseRetryAfterSeconds } from "../db/availability.js";
import { type AppError, ErrorCode, httpStatusFor } from "../errors.js";
import { codingFor, compressAnswer } from "../http/compression.js";
import type { RequestHead } from "../http/header-values.js";
import type { AnswerHeaders } from "./answer-headers.js";
import { requestError } from "./errors.js";
import { graphqlResponse, json, type MediaType } from "./http-params.js";

/** One request being answered: what every step that writes the response needs. */
export interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
  media: MediaType;
  /** The answer's header fields so far; every way of answering below writes them. */
  headers: AnswerHeaders;
  /**
   * Told the status and exact bytes of the answer as it is sent (before any compression): how a
   * request carrying an Idempotency-Key keeps its answer for replay (idempotency.ts).
   */
  keep?: (status: number, body: string | Buffer) => void;
}

/**
 * Ends a request before or instead of execution with GraphQL errors. Its status comes from the error
 * table (`statusFor`), so no step chooses a status of its own.
 */
export class Refusal extends Error {
  readonly errors: GraphQLFormattedError[];

  constructor(
    readonly code: ErrorCode,
    messageOrErrors: string | GraphQLFormattedError[],
    details: Record<string, unknown> = {},
    /** Top-level `extensions` of the answer (the budget of a rate-limited caller). */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(code);
    this.errors =
      typeof messageOrErrors === "string" ? [requestError(code, messageOrErrors, details)] : messageOrErrors;
  }

  /** The refusal for a request-level AppError, with its safe details (limit names and values). */
  static from(error: AppError): Refusal {
    return new Refusal(error.code, error.message, detailsOf(error));
  }
}

// GraphQL-over-HTTP: with application/json, request errors (a document or variables that do not
// parse or validate) still answer 200; with the GraphQL media type they answer the table's 400.
const documentErrors = new Set<ErrorCode>([
  ErrorCode.GRAPHQL_PARSE_FAILED,
  ErrorCode.GRAPHQL_VALIDATION_FAILED,
]);

/** The HTTP status of a refusal under `media`, read from the error table. */
function statusFor(code: ErrorCode, media: MediaType): number {
  return media === json && documentErrors.has(code) ? 200 : httpStatusFor(code);
}

/**
 * Answers a refusal: the status from the error table, and the headers a few refusals carry by
 * protocol (RFC 6750 for tokens, RFC 9110 for methods).
 */
export function refuse(exchange: Exchange, refusal: Refusal): FastifyReply {
  const [status, body] = refusalAnswer(refusal, exchange.media, exchange.headers);
  return send(exchange, status, body);
}

/** A refusal's status and body; the header fields its protocol asks for go on `headers`. */
export function refusalAnswer(refusal: Refusal, media: MediaType, headers: AnswerHeaders): [number, object] {
  if (refusal.code === ErrorCode.UNAUTHENTICATED)
    headers.set("www-authenticate", 'Bearer error="invalid_token"');
  if (refusal.code === ErrorCode.METHOD_NOT_ALLOWED) headers.set("allow", "POST");
  const body = refusal.extensions
    ? { errors: refusal.errors, extensions: refusal.extensions }
    : { errors: refusal.errors };
  return [statusFor(refusal.code, media), body];
}

/** The refusal of a POST body that is not declared as JSON. */
export function notJsonBody(): Refusal {
  return new Refusal(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request as Content-Type: application/json");
}

/** The refusal for anything unexpected: no detail, a request id to quote. */
export function internalError(requestId: string): Refusal {
  return new Refusal(
    ErrorCode.INTERNAL_SERVER_ERROR,
    `Internal server error. Quote request id ${requestId} when reporting it.`,
    { requestId },
  );
}

/** The safe details of a request-level AppError (limit names and values), never field errors. */
export function detailsOf(error: AppError): Record<string, unknown> {
  const { fieldErrors: _fieldErrors, ...details } = error.details;
  return details;
}

/** Sends `body` as JSON in the negotiated media type (refusals: never cached by intermediaries). */
export function send(exchange: Exchange, status: number, body: unknown): FastifyReply {
  return sendRaw(exchange, status, JSON.stringify(body));
}

/**
 * Sends an already serialized body (a cached answer's bytes); never cached unless said otherwise.
 * Compressed here when the client asks and the body is not encoded yet: the API route does
 * without @fastify/compress (src/http/compression.ts).
 */
export function sendRaw(
  { request, reply, media, headers, keep }: Exchange,
  status: number,
  body: string | Buffer,
): FastifyReply {
  keep?.(status, body);
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  headers.applyTo(reply).code(status).type(contentTypes[media]);
  const encoding = headers.has("content-encoding") ? undefined : codingFor(request, body);
  if (!encoding) return reply.send(body);
  compressAnswer(body, encoding, (error, compressed) => {
    if (error) reply.send(error);
    else reply.header("content-encoding", encoding).send(compressed);
  });
  return reply;
}

/**
 * Sends a stored answer's bytes followed by this request's own `tail`, as two writes of one response.
 * Copying a page and its tail into a fresh buffer per hit cost as much as the rest of the HTTP
 * exchange. Fastify sends one payload, so the reply is
 * hijacked: the answer's header fields, and those every response carries, are written here as one
 * list; Fastify's onResponse hooks (metrics, the access log) still run once the response finishes.
 */
export function sendInTwo(exchange: Exchange, head: Buffer, tail: Buffer): FastifyReply {
  const { reply, headers } = exchange;
  exchange.keep?.(200, Buffer.concat([head, tail]));
  const last = reply.lastHeaderFields();
  for (let i = 0; i < last.length; i += 2) headers.set(last[i] as string, last[i + 1] as string);
  reply.hijack();
  writeInTwo(reply.raw, exchange.media, headers, head, tail);
  return reply;
}

/** Writes a 200 answer of two parts on Node's response: the hijacked reply's, or the hit lane's. */
export function writeInTwo(
  response: ServerResponse,
  media: MediaType,
  headers: AnswerHeaders,
  head: Buffer,
  tail: Buffer,
): void {
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  headers
    .set("content-type", contentTypes[media])
    .set("content-length", String(head.byteLength + tail.byteLength));
  response.writeHead(200, headers.fields);
  // Corked, the head and both parts leave in one writev.
  response.cork();
  response.write(head);
  response.end(tail);
  response.uncork();
}

/**
 * Writes a whole answer of `status` on Node's response, compressed as `sendRaw` would: the hit
 * lane's answers that are not stored ones (a refusal after the budget, an internal error).
 */
export function writeWhole(
  request: RequestHead,
  response: ServerResponse,
  status: number,
  media: MediaType,
  headers: AnswerHeaders,
  text: string,
): void {
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  headers.set("content-type", contentTypes[media]);
  const write = (body: string | Buffer) => {
    headers.set("content-length", String(Buffer.byteLength(body)));
    response.writeHead(status, headers.fields);
    response.end(body);
  };
  const encoding = codingFor(request, text);
  if (!encoding) {
    write(text);
    return;
  }
  compressAnswer(text, encoding, (error, compressed) => {
    if (!error) headers.set("content-encoding", encoding);
    write(error ? text : compressed);
  });
}

// 503 with Retry-After: the database is unreachable (or its disk full, which says how long to wait);
// the client may retry the same request.
export function sendUnavailable(exchange: Exchange, errors: GraphQLFormattedError[]): FastifyReply {
  const stated = errors.map((e) => e.extensions?.retryAfterSeconds).find((s) => typeof s === "number");
  exchange.headers.set("retry-after", String(stated ?? databaseRetryAfterSeconds));
  return send(exchange, 503, { errors });
}

// The Content-Type of each media type an answer may have.
const contentTypes: Record<MediaType, string> = {
  [json]: `${json}; charset=utf-8`,
  [graphqlResponse]: `${graphqlResponse}; charset=utf-8`,
};
