import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ExecutionResult, GraphQLFormattedError } from "graphql";
import { bindDeadline } from "../db/transaction.js";
import { AppError, ErrorCode } from "../errors.js";
import { registerJsonBodyParser } from "../http/json-body.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { authenticate } from "./authentication.js";
import { appView, canonicalJson, publicView, responseCacheKey } from "./cache/response-cache.js";
import { createContext, type RequestBudget } from "./context.js";
import { DocumentCache, isCompiledQuery } from "./documents.js";
import { formatError, requestError } from "./errors.js";
import {
  graphqlResponse,
  isJsonContentType,
  json,
  type MediaType,
  negotiate,
  readParams,
} from "./http-params.js";
import { permissionsLacking } from "./limits/analyze-operation.js";
import { assertWithinLimits, operationLimitsFrom } from "./limits/operation-limits.js";
import { pointsForCost, type RateLimitState } from "./limits/rate-limiter.js";
import { schema } from "./schema.js";

// Answers computed from the clock (a ticket type's sales window opening) are not invalidated by a
// write, so cached answers also expire: exact for writes, at most this stale for the clock.
const cacheTtlMs = 30_000;

/** Registers `POST /api/graphql` (and GET for queries), following the GraphQL-over-HTTP spec. */
export function registerGraphQLRoutes(app: FastifyInstance, services: Services): void {
  const { config } = services;
  const limits = operationLimitsFrom(config);
  const documents = new DocumentCache(schema(), limits);

  app.register(async (scope) => {
    // Deeply nested JSON is refused before it is parsed (and before rate limiting): docs/security.md.
    registerJsonBodyParser(scope);
    // Malformed JSON or an oversized body never reach the handler; answer them in the GraphQL error
    // shape too, so clients handle one format.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const media = negotiate(request.headers.accept) ?? json;
      if (error.statusCode === 413) {
        const message = `The request body is larger than ${config.limits.maxBodyBytes} bytes`;
        return send(reply, 413, media, {
          errors: [
            requestError(ErrorCode.PAYLOAD_TOO_LARGE, message, {
              limit: "bodyBytes",
              max: config.limits.maxBodyBytes,
            }),
          ],
        });
      }
      if (error.statusCode === 415) {
        return send(reply, 415, media, {
          errors: [requestError(ErrorCode.BAD_REQUEST, "Send the request as Content-Type: application/json")],
        });
      }
      if (error.statusCode && error.statusCode < 500) {
        return send(reply, 400, media, {
          errors: [
            requestError(ErrorCode.BAD_REQUEST, `The request body is not valid JSON: ${error.message}`),
          ],
        });
      }
      request.log.error({ err: error }, "GraphQL request failed");
      return send(reply, 500, media, { errors: [internalError(request.id)] });
    });

    scope.route({ method: ["GET", "POST"], url: "/api/graphql", handler: handle });
  });

  // The checklist of one request: negotiate, read, authenticate, prepare, limit, charge, answer
  // (from the cache or by executing).
  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const media = negotiate(request.headers.accept);
    if (!media) {
      return send(reply, 406, json, {
        errors: [requestError(ErrorCode.BAD_REQUEST, `Accept must allow ${graphqlResponse} or ${json}`)],
      });
    }
    // GraphQL-over-HTTP: with application/json, request errors still answer 200; with the GraphQL
    // media type they answer 400.
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
      if ("error" in prepared) {
        const status = prepared.error.code === ErrorCode.QUERY_TOO_COMPLEX ? 400 : requestErrorStatus;
        return send(reply, status, media, {
          errors: [requestError(prepared.error.code, prepared.error.message, detailsOf(prepared.error))],
        });
      }
      const errors = prepared.validationErrors.map((e) => ({
        message: e.message,
        locations: e.locations,
        extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED },
      }));
      return send(reply, requestErrorStatus, media, { errors });
    }

    const variablesJson = canonicalJson(params.variables);
    let analysis: ReturnType<typeof documents.analyze>;
    try {
      analysis = documents.analyze(prepared.prepared, params.operationName, params.variables, variablesJson);
      assertWithinLimits(analysis, limits);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const status = error.code === ErrorCode.QUERY_TOO_COMPLEX ? 400 : requestErrorStatus;
      const code = error.code === ErrorCode.BAD_USER_INPUT ? ErrorCode.GRAPHQL_VALIDATION_FAILED : error.code;
      return send(reply, status, media, { errors: [requestError(code, error.message, detailsOf(error))] });
    }
    if (request.method === "GET" && analysis.operationType !== "query") {
      reply.header("allow", "POST");
      return send(reply, 405, media, {
        errors: [
          requestError(ErrorCode.BAD_REQUEST, "Only queries may be sent with GET; send mutations with POST"),
        ],
      });
    }

    const points = pointsForCost(analysis.cost);
    const [budgetKey, budgetLimit] =
      actor.kind === "app"
        ? [`app:${actor.appId}`, config.limits.appPointsPerHour]
        : [`ip:${request.ip}`, config.limits.publicPointsPerHour];
    const held = actor.kind === "app" ? actor.permissions : [];

    // A dry run is measured but neither executed nor charged.
    if (params.extensions?.dryRun === true) {
      const budget = await services.rateLimiter.peek(budgetKey, budgetLimit);
      setRateLimitHeaders(reply, budget, points);
      return send(reply, 200, media, {
        extensions: {
          dryRun: {
            cost: analysis.cost,
            points,
            depth: analysis.depth,
            nodeCount: analysis.nodeCount,
            aliases: analysis.aliases,
            requiredPermissions: analysis.permissions,
            missingPermissions: permissionsLacking(analysis.permissions, held),
          },
          rateLimit: presentBudget(budget),
        },
      });
    }

    const budget = await services.rateLimiter.consume(budgetKey, points, budgetLimit);
    setRateLimitHeaders(reply, budget, points);
    if (!budget.allowed) {
      reply.header("retry-after", String(budget.retryAfterSeconds));
      const message = `Rate limit of ${budget.limit} points per hour exceeded; retry in ${budget.retryAfterSeconds} s`;
      return send(reply, 429, media, {
        errors: [
          requestError(ErrorCode.RATE_LIMITED, message, { retryAfterSeconds: budget.retryAfterSeconds }),
        ],
        extensions: { rateLimit: presentBudget(budget) },
      });
    }
    const requestBudget: RequestBudget = { ...budget, cost: analysis.cost, points };

    const cacheKey =
      analysis.operationType === "query"
        ? responseCacheKey({
            view: actor.kind === "app" ? appView(actor.appId, actor.permissions) : publicView,
            query: params.query,
            operationName: params.operationName,
            variablesJson,
          })
        : undefined;
    const hit = cacheKey ? services.responseCache.lookup(cacheKey) : undefined;
    // The cached bytes go out as they are, followed by this request's extensions: decoding and
    // re-encoding a large page cost more than the rest of a hit.
    if (hit && (await stillCurrent(hit.versions))) {
      const tail = `,"extensions":${extensionsJson(analysis.cost, points, budget, true)}}`;
      const body = Buffer.allocUnsafe(hit.body.byteLength + Buffer.byteLength(tail));
      hit.body.copy(body);
      body.write(tail, hit.body.byteLength);
      return sendRaw(reply, 200, media, body);
    }

    const compiled = documents.compiled(prepared.prepared, params.operationName);
    if (!isCompiledQuery(compiled)) {
      return send(reply, requestErrorStatus, media, { errors: formatAll(compiled, request) });
    }
    const mark = services.responseCache.begin();
    const context = createContext(services, actor, request.id, requestBudget);
    // Past the deadline the client gets TIMEOUT at once; a write still running then rolls back
    // instead of committing (see inTransaction). Only app actors can write, and each is per request.
    const deadline = new AbortController();
    if (actor.kind === "app") bindDeadline(actor, deadline.signal);
    const timeoutMs = config.limits.requestTimeoutMs;
    const result = await withTimeout(compiled.query(undefined, context, params.variables ?? {}), timeoutMs);
    if (result === "timeout") {
      deadline.abort();
      const message = `The operation ran longer than ${timeoutMs} ms and was stopped; its changes were rolled back`;
      return send(reply, 503, media, { errors: [requestError(ErrorCode.TIMEOUT, message)] });
    }
    // No `data` at all means the variables failed to coerce: a request error, not a field error.
    const status = result.data === undefined ? requestErrorStatus : 200;
    const errors = result.errors?.length ? formatAll(result, request) : undefined;
    const parts: string[] = [];
    if (errors) parts.push(`"errors":${JSON.stringify(errors)}`);
    if (result.data !== undefined) parts.push(`"data":${JSON.stringify(result.data)}`);
    const head = `{${parts.join(",")}`;
    const internal = errors?.some((e) => e.extensions?.code === ErrorCode.INTERNAL_SERVER_ERROR);
    if (cacheKey && status === 200 && !internal && context.cacheable) {
      services.responseCache.store(cacheKey, head, context.projectsRead, mark, {
        ttlMs: cacheTtlMs,
        versions: context.projectVersions,
      });
    }
    return sendRaw(
      reply,
      status,
      media,
      `${head}${parts.length ? "," : ""}"extensions":${extensionsJson(analysis.cost, points, budget, false)}}`,
    );
  }

  // A cached answer is served only while every project it read is at the data version it was
  // computed at: one indexed read that sees writes made by any process, the CLI included.
  async function stillCurrent(versions: ReadonlyMap<string, number | null> | undefined): Promise<boolean> {
    if (!versions) return false;
    if (versions.size === 0) return true;
    const current = await services.access.dataVersions([...versions.keys()]);
    let fresh = true;
    for (const [id, version] of versions) {
      if ((current.get(id) ?? null) === version) continue;
      services.responseCache.invalidateProject(id);
      fresh = false;
    }
    return fresh;
  }

  function formatAll(result: ExecutionResult, request: FastifyRequest): GraphQLFormattedError[] {
    return (result.errors ?? []).map((error) => formatError(error, request.id, services.logger));
  }
}

function internalError(requestId: string) {
  return requestError(
    ErrorCode.INTERNAL_SERVER_ERROR,
    `Internal server error. Quote request id ${requestId} when reporting it.`,
    { requestId },
  );
}

// The safe details of a request-level AppError (limit names and values), never field errors.
function detailsOf(error: AppError): Record<string, unknown> {
  const { fieldErrors: _fieldErrors, ...details } = error.details;
  return details;
}

function presentBudget(budget: RateLimitState) {
  return { limit: budget.limit, remaining: budget.remaining, resetAt: isoTime(budget.resetAt) };
}

// Consecutive requests of one window share its reset time: formatting it once is enough.
let lastIso = { seconds: Number.NaN, text: "" };
function isoTime(epochSeconds: number): string {
  if (lastIso.seconds !== epochSeconds) {
    lastIso = { seconds: epochSeconds, text: new Date(epochSeconds * 1000).toISOString() };
  }
  return lastIso.text;
}

// The `extensions` member of an executed or cached answer, written directly: it is on every response.
function extensionsJson(cost: number, points: number, budget: RateLimitState, cached: boolean): string {
  return `{"cost":{"requestedQueryCost":${cost},"points":${points}},"rateLimit":{"limit":${budget.limit},"remaining":${budget.remaining},"resetAt":"${isoTime(budget.resetAt)}"},"cached":${cached}}`;
}

function setRateLimitHeaders(reply: FastifyReply, budget: RateLimitState, points: number): void {
  reply
    .header("x-ratelimit-limit", String(budget.limit))
    .header("x-ratelimit-remaining", String(budget.remaining))
    .header("x-ratelimit-reset", String(budget.resetAt))
    .header("x-ratelimit-cost", String(points));
}

function withTimeout<T>(work: T | Promise<T>, ms: number): Promise<T | "timeout"> | T {
  if (!(work instanceof Promise)) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function send(reply: FastifyReply, status: number, media: MediaType, body: unknown): FastifyReply {
  return sendRaw(reply, status, media, JSON.stringify(body));
}

function sendRaw(reply: FastifyReply, status: number, media: MediaType, body: string | Buffer): FastifyReply {
  return reply.code(status).header("cache-control", "no-store").type(`${media}; charset=utf-8`).send(body);
}
