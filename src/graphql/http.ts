import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLSchema } from "graphql";
import { AppError, ErrorCode } from "../errors.js";
import { closingBytes, negotiateEncoding, openStream } from "../http/compression.js";
import { registerJsonBodyParser } from "../http/json-body.js";
import { type Actor, bindOrigin } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { allAreas } from "../shared/data-areas.js";
import { describeOperation, inOperationSpan, recordErrorCode } from "../telemetry/spans.js";
import { AnswerHeaders } from "./answer-headers.js";
import { authenticate } from "./authentication.js";
import { appView, canonicalJson, publicView, responseCacheKey } from "./cache/cache-key.js";
import { areasReadBy } from "./cache/document-areas.js";
import { stillCurrent } from "./cache/freshness.js";
import type { RequestBudget } from "./context.js";
import { DocumentCache } from "./documents.js";
import { requestError } from "./errors.js";
import { createExecutor, type Operation, Unavailable } from "./execution.js";
import {
  detailsOf,
  type Exchange,
  internalError,
  notJsonBody,
  Refusal,
  refuse,
  send,
  sendInTwo,
  sendUnavailable,
} from "./http-answers.js";
import { applyCaching, registerPreflight, sendNotModified, setRateLimitHeaders } from "./http-caching.js";
import { extensionsTail, presentBudget } from "./http-extensions.js";
import {
  type GraphQLParams,
  graphqlResponse,
  inQueryString,
  isJsonContentType,
  json,
  negotiate,
  readParams,
} from "./http-params.js";
import { type OperationAnalysis, permissionsLacking } from "./limits/analyze-operation.js";
import { assertWithinLimits, operationLimitsFrom } from "./limits/operation-limits.js";
import { pointsForCost, type RateLimitState } from "./limits/rate-limiter.js";

/** Registers `POST /api/graphql` (and GET for queries) serving `schema`, following the GraphQL-over-HTTP spec. */
export function registerGraphQLRoutes(app: FastifyInstance, services: Services, schema: GraphQLSchema): void {
  const { config } = services;
  const limits = operationLimitsFrom(config);
  const documents = new DocumentCache(schema, limits);
  const executor = createExecutor(services, documents);

  app.register(async (scope) => {
    // Deeply nested JSON is refused before it is parsed (and before rate limiting): docs/security.md.
    registerJsonBodyParser(scope);
    // Malformed JSON or an oversized body never reach the handler; answer them in the GraphQL error
    // shape too, so clients handle one format.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const media = negotiate(request.headers.accept) ?? json;
      const exchange: Exchange = { request, reply, media, headers: new AnswerHeaders() };
      if (error instanceof AppError && error.code === ErrorCode.SERVICE_UNAVAILABLE) {
        return sendUnavailable(exchange, [requestError(error.code, error.message, detailsOf(error))]);
      }
      if (error.statusCode === 413) {
        const message = `The request body is larger than ${config.limits.maxBodyBytes} bytes`;
        return refuse(
          exchange,
          new Refusal(ErrorCode.PAYLOAD_TOO_LARGE, message, {
            limit: "bodyBytes",
            max: config.limits.maxBodyBytes,
          }),
        );
      }
      if (error.statusCode === 415) return refuse(exchange, notJsonBody());
      if (error.statusCode && error.statusCode < 500) {
        const message = `The request body is not valid JSON: ${error.message}`;
        return refuse(exchange, new Refusal(ErrorCode.BAD_REQUEST, message));
      }
      request.log.error({ err: error }, "GraphQL request failed");
      return refuse(exchange, internalError(request.id));
    });

    registerPreflight(scope, "/api/graphql");
    scope.route({ method: ["GET", "POST"], url: "/api/graphql", compress: false, handler: handle });
  });

  // The checklist of one request. Each step either hands its result to the next or refuses the
  // request with a Refusal, whose HTTP status comes from the error table.
  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const media = negotiate(request.headers.accept);
    const exchange: Exchange = { request, reply, media: media ?? json, headers: new AnswerHeaders() };
    if (!media) {
      const message = `Accept must allow ${graphqlResponse} or ${json}`;
      return refuse(exchange, new Refusal(ErrorCode.NOT_ACCEPTABLE, message));
    }
    return inOperationSpan(request.id, async (span) => {
      try {
        const params = readRequest(request);
        const actor = await authenticateCaller(request.headers.authorization);
        // An app's actor object is this request's own; the public actor is shared and writes nothing.
        if (actor.kind === "app") bindOrigin(actor, { via: "api", ip: request.ip });
        const operation = prepare(request, params, actor);
        describeOperation(span, {
          operationType: request.graphqlOperationType ?? operation.analysis.operationType,
          document: operation.prepared.document,
          operationName: params.operationName,
          cost: operation.analysis.cost,
        });
        if (params.extensions?.dryRun === true) return await answerDryRun(exchange, actor, operation);
        const budget = await charge(exchange, actor, operation);
        // A reply is thenable (it settles once sent), so the cache answers with a boolean: awaiting an
        // async function that returns a reply yields undefined, which once sent every hit on to execute.
        if (await answerFromCache(exchange, actor, operation, budget)) return reply;
        // An identical query answered while this one waited for its turn is a hit after all.
        const again = () => answerFromCache(exchange, actor, operation, budget, true);
        return await executor.run(exchange, actor, operation, budget, again);
      } catch (error) {
        if (error instanceof Refusal) {
          recordErrorCode(span, error.code);
          return refuse(exchange, error);
        }
        if (error instanceof Unavailable) return error.reply;
        // The scope's error handler answers it on the reply: the fields gathered so far (the
        // budget's among them) go there first, as they did when every step set them on the reply.
        if (!reply.sent) exchange.headers.applyTo(reply);
        throw error;
      }
    });
  }

  /** Checks the content type and reads `query`, `variables`, `operationName` and `extensions`. */
  function readRequest(request: FastifyRequest): GraphQLParams {
    if (request.method === "POST" && !isJsonContentType(request.headers["content-type"])) throw notJsonBody();
    const params = readParams(request);
    if (params instanceof AppError) throw Refusal.from(params);
    return params;
  }

  /**
   * The caller: the public view without a token, the app of a valid token, else UNAUTHENTICATED.
   * Without a promise when the answer is known at once (no header, a remembered token).
   */
  function authenticateCaller(header: string | undefined): Actor | Promise<Actor> {
    let found: Actor | Promise<Actor>;
    try {
      found = authenticate(services, header);
    } catch (error) {
      throw refusalOfAuthentication(error);
    }
    if (found instanceof Promise) {
      return found.then(admit, (error) => {
        throw refusalOfAuthentication(error);
      });
    }
    return admit(found);
  }

  function admit(actor: Actor): Actor {
    if (actor.kind === "app") services.apps.recordRequest(actor.appId);
    return actor;
  }

  /** Parses, validates and measures the operation, and refuses it past the limits. */
  function prepare(request: FastifyRequest, params: GraphQLParams, actor: Actor): Operation {
    const prepared = documents.prepare(params.query);
    if (!prepared.ok) {
      if ("error" in prepared) throw Refusal.from(prepared.error);
      throw new Refusal(
        ErrorCode.GRAPHQL_VALIDATION_FAILED,
        prepared.validationErrors.map((e) => ({
          message: e.message,
          locations: e.locations,
          extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED },
        })),
      );
    }
    const variables = documents.withDefaults(prepared.prepared, params.operationName, params.variables);
    const variablesJson = canonicalJson(params.variables);
    let analysis: OperationAnalysis;
    try {
      analysis = documents.analyze(prepared.prepared, params.operationName, variables, variablesJson);
      assertWithinLimits(analysis, limits);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // Variables that do not fit their types are a validation failure of the request.
      if (error.code !== ErrorCode.BAD_USER_INPUT) throw Refusal.from(error);
      throw new Refusal(ErrorCode.GRAPHQL_VALIDATION_FAILED, error.message, detailsOf(error));
    }
    request.graphqlOperationType = params.extensions?.dryRun === true ? "dry_run" : analysis.operationType;
    if (inQueryString(request) && analysis.operationType !== "query") {
      throw new Refusal(
        ErrorCode.METHOD_NOT_ALLOWED,
        "Only queries may be sent with GET; send mutations with POST",
      );
    }
    const cacheKey =
      analysis.operationType === "query"
        ? responseCacheKey({
            view: actor.kind === "app" ? appView(actor.appId, actor.permissions) : publicView,
            query: params.query,
            operationName: params.operationName,
            variablesJson,
          })
        : undefined;
    const areas = cacheKey ? areasReadBy(schema, prepared.prepared.document) : allAreas;
    return { params, prepared: prepared.prepared, analysis, variables, cacheKey, areas };
  }

  /** Where the caller's points are counted: per app, or per client IP for public requests. */
  function budgetOf(actor: Actor, request: FastifyRequest): [key: string, limit: number] {
    return actor.kind === "app"
      ? [`app:${actor.appId}`, config.limits.appPointsPerHour]
      : [`ip:${request.ip}`, config.limits.publicPointsPerHour];
  }

  /** A dry run is measured but neither executed nor charged. */
  async function answerDryRun(
    exchange: Exchange,
    actor: Actor,
    { analysis }: Operation,
  ): Promise<FastifyReply> {
    const points = pointsForCost(analysis.cost);
    const [key, limit] = budgetOf(actor, exchange.request);
    const budget = await services.rateLimiter.peek(key, limit);
    setRateLimitHeaders(exchange.headers, budget, points);
    const held = actor.kind === "app" ? actor.permissions : [];
    return send(exchange, 200, {
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

  /** Takes the operation's points from the caller's hourly budget, or refuses with RATE_LIMITED. */
  function charge(
    { request, headers }: Exchange,
    actor: Actor,
    { analysis }: Operation,
  ): RequestBudget | Promise<RequestBudget> {
    const points = pointsForCost(analysis.cost);
    const [key, limit] = budgetOf(actor, request);
    const charged = services.rateLimiter.consume(key, points, limit);
    // In process the budget is known at once: no promise on the way of every request.
    if (charged instanceof Promise)
      return charged.then((budget) => settle(headers, analysis, points, budget));
    return settle(headers, analysis, points, charged);
  }

  /** Tells the caller its budget, and refuses with RATE_LIMITED when the points did not fit. */
  function settle(
    headers: AnswerHeaders,
    analysis: OperationAnalysis,
    points: number,
    budget: RateLimitState,
  ): RequestBudget {
    setRateLimitHeaders(headers, budget, points);
    if (!budget.allowed) {
      headers.set("retry-after", String(budget.retryAfterSeconds));
      const message = `Rate limit of ${budget.limit} points per hour exceeded; retry in ${budget.retryAfterSeconds} s`;
      throw new Refusal(
        ErrorCode.RATE_LIMITED,
        message,
        { retryAfterSeconds: budget.retryAfterSeconds },
        { rateLimit: presentBudget(budget) },
      );
    }
    // Spelled out: on Node 20, `{ ...budget, cost, points }` (a spread with members after it) took
    // 2.8 µs, a literal 0.02 (docs/performance.md, "Round sixteen").
    return {
      allowed: budget.allowed,
      limit: budget.limit,
      remaining: budget.remaining,
      resetAt: budget.resetAt,
      retryAfterSeconds: budget.retryAfterSeconds,
      cost: analysis.cost,
      points,
    };
  }

  /** Answers from the response cache when an identical query's answer is still current; true once sent. */
  async function answerFromCache(
    exchange: Exchange,
    actor: Actor,
    { analysis, cacheKey }: Operation,
    budget: RequestBudget,
    /** A second look after waiting for an execution slot: the first one counted the miss already. */
    again = false,
  ): Promise<boolean> {
    const hit = cacheKey ? services.responseCache.lookup(cacheKey, again) : undefined;
    if (!hit) return false;
    const current = stillCurrent(services, hit);
    if (!(current === true || (current !== false && (await current)))) return false;
    if (applyCaching(exchange, actor, hit.versions)) {
      sendNotModified(exchange);
      return true;
    }
    // The cached bytes go out as they are, followed by this request's extensions: decoding and
    // re-encoding a large page cost more than the rest of a hit, and so did copying it.
    const tail = extensionsTail(analysis.cost, budget.points, budget, true);
    const encoding = negotiateEncoding(exchange.request);
    if (encoding) {
      // Compressed once per entry and coding; each hit only compresses (stores) its own tail.
      hit.encoded[encoding] ??= openStream(hit.body, encoding);
      const open = await hit.encoded[encoding];
      const closing = closingBytes(open, tail);
      if (closing) {
        exchange.headers.set("content-encoding", encoding);
        sendInTwo(exchange, open.prefix, closing);
        return true;
      }
    }
    sendInTwo(exchange, hit.body, tail);
    return true;
  }
}

/** A rejected token is the caller's error (401); anything else fails the request as it is. */
function refusalOfAuthentication(error: unknown): unknown {
  return error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED ? Refusal.from(error) : error;
}
