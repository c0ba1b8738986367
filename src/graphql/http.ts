import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLSchema } from "graphql";
import { AppError, ErrorCode } from "../errors.js";
import type { FrontDoor } from "../http/front-door.js";
import { registerJsonBodyParser } from "../http/json-body.js";
import type { ResponseObserver } from "../metrics/metrics.routes.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { describeOperation, inOperationSpan, recordErrorCode } from "../telemetry/spans.js";
import { AnswerHeaders } from "./answer-headers.js";
import { stillCurrent } from "./cache/freshness.js";
import type { RequestBudget } from "./context.js";
import { DocumentCache } from "./documents.js";
import { requestError } from "./errors.js";
import { createExecutor, type Operation, Unavailable } from "./execution.js";
import { type HitLane, hitLane, replayHandedOnBodies } from "./hit-lane.js";
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
import { registerPreflight, sendNotModified, setRateLimitHeaders } from "./http-caching.js";
import { presentBudget } from "./http-extensions.js";
import {
  type GraphQLParams,
  graphqlResponse,
  inQueryString,
  isJsonContentType,
  json,
  negotiate,
  readParams,
} from "./http-params.js";
import { answerOnce, idempotencyKeyOf } from "./idempotency.js";
import { introspectionResponder } from "./introspection/answer-introspection.js";
import { IntrospectionAnswers } from "./introspection/introspection-answers.js";
import { permissionsLacking } from "./limits/analyze-operation.js";
import { operationLimitsFrom } from "./limits/operation-limits.js";
import { pointsForCost } from "./limits/rate-limiter.js";
import { RequestSteps } from "./request-steps.js";
import { storedAnswerParts } from "./stored-answer.js";
import { registerStreamRoute, streamPath } from "./streams/stream-route.js";
import { type ApiVersion, versionHeader } from "./versions/api-versions.js";
import { announceVersion } from "./versions/deprecations.js";
import { VersionedSteps } from "./versions/versioned-steps.js";

/**
 * Registers `POST /api/graphql` (and GET for queries) serving the schema of each API version
 * (`schemaOf`, built once per version), following the GraphQL-over-HTTP spec.
 */
export function registerGraphQLRoutes(
  app: FastifyInstance,
  services: Services,
  schemaOf: (version: ApiVersion) => GraphQLSchema,
  /** Where the hit lane goes, and the metrics it records in. */
  { door, observe }: { door: FrontDoor; observe: ResponseObserver | undefined },
): void {
  const { config } = services;
  const limits = operationLimitsFrom(config);
  // Per version: its documents (parsed and validated against its schema), executor and
  // introspection answers. The response cache is shared: its keys carry the version (cache-key.ts).
  const runtimes = new Map<RequestSteps, Runtime>();
  const versions = new VersionedSteps((version) => {
    const schema = schemaOf(version);
    const documents = new DocumentCache(schema, limits, { jit: config.fastPaths.jit });
    const steps = new RequestSteps(version, services, schema, documents, limits);
    runtimes.set(steps, {
      executor: createExecutor(services, documents),
      introspection: introspectionResponder(steps, new IntrospectionAnswers(schema, services.logger)),
    });
    return steps;
  });
  const runtimeOf = (steps: RequestSteps) => runtimes.get(steps) as Runtime;
  let lane: HitLane | undefined;

  app.register(async (scope) => {
    // Deeply nested JSON is refused before it is parsed (and before rate limiting): docs/security.md.
    const rememberedBody = registerJsonBodyParser(scope);
    replayHandedOnBodies(scope);
    const { logger } = services;
    const lastHeaderFields = (id: string) => door.lastHeaderFields(id);
    // Fast path `hit-lane` (src/config.ts): stored answers served before Fastify. Invariant: it
    // answers only what the route would answer alike, after the same request steps, and hands
    // anything else on untouched (hit-lane.ts); guarded by test/api/hit-lane.test.ts and
    // hit-lane-edges.test.ts. Off, every request goes through the route.
    if (config.fastPaths["hit-lane"]) {
      lane = hitLane({ config, services, versions, logger, rememberedBody, observe, lastHeaderFields });
      door.use(lane.serve);
    }
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
    registerStreamRoute(scope, services, schemaOf, versions);
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
        const actor = await versions.any.authenticate(request.headers.authorization);
        const steps = versions.for(request.headers, actor);
        const { executor, introspection } = runtimeOf(steps);
        exchange.headers.set(versionHeader, steps.version.name);
        steps.admit(actor, request.ip);
        const { operation, paid } = await steps.preparePaid(exchange.headers, params, actor, request.ip);
        announceVersion(exchange.headers, operation.version, operation.deprecation);
        request.graphqlOperationType =
          params.extensions?.dryRun === true ? "dry_run" : operation.analysis.operationType;
        if (operation.analysis.operationType === "subscription") {
          throw new Refusal(
            ErrorCode.BAD_REQUEST,
            `Subscriptions are served over Server-Sent Events at ${streamPath}`,
          );
        }
        if (inQueryString(request) && operation.analysis.operationType !== "query") {
          throw new Refusal(
            ErrorCode.METHOD_NOT_ALLOWED,
            "Only queries may be sent with GET; send mutations with POST",
          );
        }
        describeOperation(span, {
          operationType: request.graphqlOperationType,
          document: operation.prepared.document,
          operationName: params.operationName,
          cost: operation.analysis.cost,
        });
        if (params.extensions?.dryRun === true) return await answerDryRun(exchange, actor, operation, steps);
        if (operation.introspectionOnly) return await introspection.answer(exchange, actor, operation, paid);
        const budget = await steps.charge(exchange.headers, actor, operation, request.ip, paid);
        // Charged as any request: a replay or a refused key costs the operation's points, so a
        // retry loop is never free (docs/guides/12-idempotency.md).
        const keyed = idempotencyKeyOf(request, actor, operation);
        if (keyed) {
          // A mutation is never answered from the cache, however long it waited for a slot.
          const once = () => executor.run(exchange, actor, operation, budget, async () => false);
          return await answerOnce(services, exchange, actor, keyed, once);
        }
        // A reply is thenable (it settles once sent), so the cache answers with a boolean: awaiting an
        // async function that returns a reply yields undefined, which once sent every hit on to execute.
        if (await answerFromCache(exchange, actor, operation, budget)) {
          lane?.noteHit(request.raw);
          return reply;
        }
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
   * A dry run is measured but not executed, and costs only the validation of a document the server
   * had not prepared before (`preparePaid` took it).
   */
  async function answerDryRun(
    exchange: Exchange,
    actor: Actor,
    operation: Operation,
    steps: RequestSteps,
  ): Promise<FastifyReply> {
    const { analysis } = operation;
    const points = operation.introspectionOnly
      ? runtimeOf(steps).introspection.points(operation, exchange.request.headers["if-none-match"])
      : pointsForCost(analysis.cost);
    const [key, limit] = steps.budgetOf(actor, exchange.request.ip);
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
    const parts = await storedAnswerParts(
      exchange.request,
      exchange.headers,
      actor,
      analysis.cost,
      budget,
      hit,
    );
    if (parts) sendInTwo(exchange, parts[0], parts[1]);
    else sendNotModified(exchange);
    return true;
  }
}

/** What a version needs beside its request steps. */
interface Runtime {
  executor: ReturnType<typeof createExecutor>;
  introspection: ReturnType<typeof introspectionResponder>;
}
