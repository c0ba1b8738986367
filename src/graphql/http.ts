import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ExecutionResult, GraphQLFormattedError } from "graphql";
import { AppError, ErrorCode } from "../errors.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { authenticate } from "./authentication.js";
import { createContext } from "./context.js";
import { DocumentCache, isCompiledQuery } from "./documents.js";
import { formatError, requestError } from "./errors.js";
import { schema } from "./schema.js";

const graphqlResponse = "application/graphql-response+json";
const json = "application/json";
type MediaType = typeof graphqlResponse | typeof json;

/** The parameters of a GraphQL-over-HTTP request, from a JSON body or a GET query string. */
interface GraphQLParams {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  extensions: Record<string, unknown> | undefined;
}

// Default document limit until the configurable operation limits take over this job.
const maxTokens = 10_000;

/** Registers `POST /api/graphql` (and GET for queries), following the GraphQL-over-HTTP spec. */
export function registerGraphQLRoutes(app: FastifyInstance, services: Services): void {
  const documents = new DocumentCache(schema(), { maxTokens });

  app.register(async (scope) => {
    // Malformed JSON, a wrong content type or an oversized body never reach the handler; answer them
    // in the GraphQL error shape too, so clients handle one format.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const media = negotiate(request.headers.accept) ?? json;
      if (error.statusCode === 413) {
        return send(reply, 413, media, {
          errors: [
            requestError(
              ErrorCode.PAYLOAD_TOO_LARGE,
              `The request body is larger than ${services.config.limits.maxBodyBytes} bytes`,
            ),
          ],
        });
      }
      if (error.statusCode === 415) {
        return send(reply, 415, media, {
          errors: [requestError(ErrorCode.BAD_REQUEST, "Send the request as Content-Type: application/json")],
        });
      }
      if (error.statusCode && error.statusCode < 500) {
        return send(reply, error.statusCode, media, {
          errors: [
            requestError(ErrorCode.BAD_REQUEST, `The request body is not valid JSON: ${error.message}`),
          ],
        });
      }
      request.log.error({ err: error }, "GraphQL request failed");
      return send(reply, 500, media, {
        errors: [
          requestError(
            ErrorCode.INTERNAL_SERVER_ERROR,
            `Internal server error. Quote request id ${request.id} when reporting it.`,
            { requestId: request.id },
          ),
        ],
      });
    });

    scope.route({
      method: ["GET", "POST"],
      url: "/api/graphql",
      handler: (request, reply) => handle(request, reply),
    });
  });

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const media = negotiate(request.headers.accept);
    if (!media) {
      return send(reply, 406, json, {
        errors: [requestError(ErrorCode.BAD_REQUEST, `Accept must allow ${graphqlResponse} or ${json}`)],
      });
    }
    const requestErrorStatus = media === graphqlResponse ? 400 : 200;
    if (request.method === "POST" && !isJsonContentType(request.headers["content-type"])) {
      return send(reply, 415, media, {
        errors: [requestError(ErrorCode.BAD_REQUEST, "Send the request as Content-Type: application/json")],
      });
    }

    const params = readParams(request);
    if (params instanceof AppError)
      return send(reply, 400, media, { errors: [requestError(params.code, params.message)] });

    let actor: Actor;
    try {
      actor = await authenticate(services, request.headers.authorization);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) {
        reply.header("www-authenticate", 'Bearer error="invalid_token"');
        return send(reply, 401, media, { errors: [requestError(error.code, error.message)] });
      }
      throw error;
    }
    if (actor.kind === "app") services.apps.recordRequest(actor.appId);

    const prepared = documents.prepare(params.query);
    if (!prepared.ok) {
      const code =
        prepared.stage === "parse" ? ErrorCode.GRAPHQL_PARSE_FAILED : ErrorCode.GRAPHQL_VALIDATION_FAILED;
      const errors = prepared.errors.map((e) => ({
        message: e.message,
        locations: e.locations,
        extensions: { code },
      }));
      return send(reply, requestErrorStatus, media, { errors });
    }
    const operation = documents.operation(prepared.prepared, params.operationName);
    if (!operation) {
      const message = params.operationName
        ? `No operation named "${params.operationName}" in the document`
        : "The document has several operations: name the one to run with operationName";
      return send(reply, 400, media, {
        errors: [requestError(ErrorCode.GRAPHQL_VALIDATION_FAILED, message)],
      });
    }
    if (request.method === "GET" && operation.operation !== "query") {
      reply.header("allow", "POST");
      return send(reply, 405, media, {
        errors: [
          requestError(ErrorCode.BAD_REQUEST, "Only queries may be sent with GET; send mutations with POST"),
        ],
      });
    }

    const compiled = documents.compiled(prepared.prepared, params.operationName);
    if (!isCompiledQuery(compiled)) {
      return send(reply, requestErrorStatus, media, { errors: formatAll(compiled, request) });
    }
    const context = createContext(services, actor, request.id);
    const result = await compiled.query(undefined, context, params.variables ?? {});
    // No `data` at all means the variables failed to coerce: a request error, not a field error.
    const status = result.data === undefined ? requestErrorStatus : 200;
    const body: Record<string, unknown> = {};
    if (result.errors?.length) body.errors = formatAll(result, request);
    if (result.data !== undefined) body.data = result.data;
    return send(reply, status, media, body);
  }

  function formatAll(result: ExecutionResult, request: FastifyRequest): GraphQLFormattedError[] {
    return (result.errors ?? []).map((error) => formatError(error, request.id, request.log as never));
  }
}

function send(reply: FastifyReply, status: number, media: MediaType, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .type(`${media}; charset=utf-8`)
    .send(JSON.stringify(body));
}

/** Picks the response media type from Accept; undefined when neither JSON type is acceptable. */
export function negotiate(accept: string | undefined): MediaType | undefined {
  if (!accept) return json;
  const ranges = accept.split(",").map((part) => {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { type: type.trim(), q: q ? Number(q.slice(2)) : 1 };
  });
  const accepts = (type: string) => ranges.some((r) => r.type === type && r.q > 0);
  if (accepts(graphqlResponse)) return graphqlResponse;
  if (accepts(json) || accepts("application/*") || accepts("*/*")) return json;
  return undefined;
}

function isJsonContentType(header: string | undefined): boolean {
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
    try {
      parsed = JSON.parse(value);
    } catch {
      return new AppError(ErrorCode.BAD_REQUEST, `${name} must be a JSON object`);
    }
  }
  if (parsed === null) return undefined;
  return isObject(parsed) ? parsed : new AppError(ErrorCode.BAD_REQUEST, `${name} must be a JSON object`);
}

function readParams(request: FastifyRequest): GraphQLParams | AppError {
  const source = request.method === "GET" ? request.query : request.body;
  if (Array.isArray(source))
    return new AppError(
      ErrorCode.BAD_REQUEST,
      "Batched requests (a JSON array) are not supported: send one operation per request",
    );
  if (!isObject(source))
    return new AppError(ErrorCode.BAD_REQUEST, "The request must be a JSON object with a `query` string");
  const { query, operationName } = source;
  if (typeof query !== "string" || query.trim() === "")
    return new AppError(
      ErrorCode.BAD_REQUEST,
      "`query` must be a non-empty string holding a GraphQL document",
    );
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return new AppError(ErrorCode.BAD_REQUEST, "`operationName` must be a string");
  }
  const variables = jsonParam(source.variables, "variables");
  if (variables instanceof AppError) return variables;
  const extensions = jsonParam(source.extensions, "extensions");
  if (extensions instanceof AppError) return extensions;
  return { query, operationName: operationName ?? undefined, variables, extensions };
}
