import type { FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../errors.js";
import { rememberedPerValue, weightedMembers } from "../http/header-values.js";
import { jsonDepthExceeds, maxJsonDepth } from "../http/json-body.js";

export const graphqlResponse = "application/graphql-response+json";
export const json = "application/json";
export type MediaType = typeof graphqlResponse | typeof json;

/** The parameters of a GraphQL-over-HTTP request, from a JSON body or a GET query string. */
export interface GraphQLParams {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  extensions: Record<string, unknown> | undefined;
}

/** Picks the response media type from Accept; undefined when neither JSON type is acceptable. */
export function negotiate(accept: string | undefined): MediaType | undefined {
  // The headers clients send most often, answered without parsing.
  if (!accept || accept === "*/*" || accept === json) return json;
  if (accept === graphqlResponse) return graphqlResponse;
  return negotiated(accept);
}

const negotiated = rememberedPerValue((accept: string): MediaType | undefined => {
  const ranges = weightedMembers(accept);
  const accepts = (type: string) => ranges.some((r) => r.name === type && r.q > 0);
  if (accepts(graphqlResponse)) return graphqlResponse;
  if (accepts(json) || accepts("application/*") || accepts("*/*")) return json;
  return undefined;
});

/** Whether a request's Content-Type is JSON (any charset; the body is read as UTF-8). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === json || header === "application/json; charset=utf-8") return true;
  return header?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// GET carries variables and extensions as JSON text in the query string.
function jsonParam(value: unknown, name: string): Record<string, unknown> | undefined | AppError {
  if (value === undefined || value === null || value === "") return undefined;
  let parsed = value;
  if (typeof value === "string") {
    if (jsonDepthExceeds(value)) {
      return new AppError(ErrorCode.BAD_REQUEST, `${name} nests deeper than ${maxJsonDepth} levels`);
    }
    try {
      parsed = JSON.parse(value);
    } catch {
      return new AppError(ErrorCode.BAD_REQUEST, `${name} must be a JSON object`);
    }
  }
  if (parsed === null) return undefined;
  return isObject(parsed) ? parsed : new AppError(ErrorCode.BAD_REQUEST, `${name} must be a JSON object`);
}

/**
 * Whether the request carries its operation in the query string: GET, and HEAD, which answers as
 * GET would without the body (RFC 9110 §9.3.2; Fastify routes HEAD to the GET handler).
 */
export function inQueryString(request: { method?: string }): boolean {
  return request.method === "GET" || request.method === "HEAD";
}

/** Reads and checks the request parameters; an AppError (BAD_REQUEST) says what is wrong. */
export function readParams(request: FastifyRequest): GraphQLParams | AppError {
  return paramsOf(inQueryString(request) ? request.query : request.body);
}

/** Checks the parameters of a parsed body (or query string); an AppError says what is wrong. */
export function paramsOf(source: unknown): GraphQLParams | AppError {
  if (Array.isArray(source)) {
    return new AppError(
      ErrorCode.BAD_REQUEST,
      "Batched requests (a JSON array) are not supported: send one operation per request",
    );
  }
  if (!isObject(source))
    return new AppError(ErrorCode.BAD_REQUEST, "The request must be a JSON object with a `query` string");
  const { query, operationName } = source;
  if (typeof query !== "string" || query.trim() === "") {
    return new AppError(
      ErrorCode.BAD_REQUEST,
      "`query` must be a non-empty string holding a GraphQL document",
    );
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return new AppError(ErrorCode.BAD_REQUEST, "`operationName` must be a string");
  }
  const variables = jsonParam(source.variables, "variables");
  if (variables instanceof AppError) return variables;
  const extensions = jsonParam(source.extensions, "extensions");
  if (extensions instanceof AppError) return extensions;
  return { query, operationName: operationName ?? undefined, variables, extensions };
}
