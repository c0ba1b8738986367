import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSourceEventStream, type ExecutionResult, execute, type GraphQLSchema } from "graphql";
import { createHandler } from "graphql-sse";
import { AppError, ErrorCode } from "../../errors.js";
import type { Actor } from "../../modules/access/actor.js";
import type { Services } from "../../services.js";
import { type LiveSignal, slowSubscriber } from "../../shared/live/live-hub.js";
import { AnswerHeaders } from "../answer-headers.js";
import { canonicalJson, responseCacheKey } from "../cache/cache-key.js";
import { createContext, type GraphQLContext } from "../context.js";
import { formatError } from "../errors.js";
import type { Operation } from "../execution.js";
import { type Exchange, internalError, notJsonBody, Refusal, refuse } from "../http-answers.js";
import { graphqlResponse, isJsonContentType, readParams } from "../http-params.js";
import { type ApiVersion, latestVersion } from "../versions/api-versions.js";
import { announceVersion } from "../versions/deprecations.js";
import type { VersionedSteps } from "../versions/versioned-steps.js";

/** Where subscriptions are served: the GraphQL over SSE protocol, "distinct connections" mode. */
export const streamPath = "/api/graphql/stream";

/**
 * Bytes a stream's response may hold unsent (the client not reading) before the stream is cut with
 * SLOW_SUBSCRIBER: a stalled phone costs this much memory at most, not the whole event history.
 */
const maxUnsentBytes = 256 * 1024;

/** What a stream's request carries from the request steps into graphql-sse's callbacks. */
interface Prepared {
  actor: Actor;
  operation: Operation;
  context: GraphQLContext;
  renew(): void;
  /** Streams with the same key get the same result for an event: the caller's view and the operation. */
  shareKey: string;
}

// The result of each event per share key, computed by the first stream to ask. A signal is one
// object for all the streams it reaches (LiveHub.publish), so the entry goes with the last of them.
const sharedResults = new WeakMap<LiveSignal, Map<string, Promise<ExecutionResult>>>();

/**
 * `POST /api/graphql/stream`: a subscription over Server-Sent Events (graphql-sse). The request goes
 * through the same steps as a query (token, admission, parse, validation, cost and depth, the
 * hourly budget: request-steps.ts), then opens a stream within the limits of streams per app and per
 * IP (LiveHub). The operation's points are charged once, when it opens; events cost nothing more,
 * and the open-stream limits bound what one caller can hold. Only apps subscribe: every field of the
 * Subscription type needs a permission, which the public has none of.
 */
export function registerStreamRoute(
  scope: FastifyInstance,
  services: Services,
  schemaOf: (version: ApiVersion) => GraphQLSchema,
  versions: VersionedSteps,
): void {
  const { live, logger } = services;
  // graphql-sse types a context as a plain record; ours is the GraphQLContext of `Prepared`.
  const handler = createHandler<FastifyRequest, Prepared, Record<PropertyKey, unknown>>({
    // Only for graphql-sse's own checks: each stream executes in its request's version (below).
    schema: schemaOf(latestVersion),
    // Validated (and remembered) by the request steps already.
    validate: () => [],
    // No reservations: each subscription is its own request ("distinct connections mode").
    authenticate: () => null,
    // The subscription runs here rather than through graphql-js's `subscribe`, which executes the
    // selection once per stream and event: a thousand lobby screens of one app would read the same
    // attendee a thousand times per check-in. Each event is executed once per share key instead.
    onSubscribe: async (req) => {
      const { operation, context, renew, shareKey } = req.context;
      const args = {
        schema: schemaOf(operation.version),
        document: operation.prepared.document,
        operationName: operation.params.operationName,
        variableValues: operation.variables,
        contextValue: context,
      };
      const source = await createSourceEventStream(args);
      // Refused before it listens (no such project, a permission lacking): its one result. graphql-sse
      // takes an object for a result only with a `data` member.
      if (!(Symbol.asyncIterator in source)) return { data: null, ...formatted(source, req.raw.id) };
      const signals = source as AsyncIterableIterator<LiveSignal>;
      const resultOf = (signal: LiveSignal): Promise<ExecutionResult> => {
        const results = sharedResults.get(signal) ?? new Map<string, Promise<ExecutionResult>>();
        sharedResults.set(signal, results);
        let result = results.get(shareKey);
        if (!result) {
          // Each event reads with fresh loaders and access, as a new request would.
          renew();
          result = Promise.resolve(execute({ ...args, rootValue: signal })).then((r) =>
            formatted(r, req.raw.id),
          );
          results.set(shareKey, result);
        }
        return result;
      };
      return (async function* results() {
        try {
          for await (const signal of signals) yield await resultOf(signal);
        } finally {
          await signals.return?.();
        }
      })();
    },
  });

  /** A result with its errors as the API shows them (codes kept, internal ones masked and logged). */
  function formatted(result: ExecutionResult, requestId: string): ExecutionResult {
    if (!result.errors) return result;
    const errors = result.errors.map((error) => formatError(error, requestId, logger));
    return { ...result, errors } as unknown as ExecutionResult;
  }

  scope.route({ method: "POST", url: streamPath, compress: false, handler: open });

  async function open(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    // Refusals answer in application/graphql-response+json, whose statuses are the error table's own
    // (plain JSON answers some with 200, which an SSE client would take for a stream).
    const exchange: Exchange = { request, reply, media: graphqlResponse, headers: new AnswerHeaders() };
    let prepared: Prepared;
    let ended: AppError | undefined;
    let body: AsyncGenerator<string, void, undefined> | undefined;
    try {
      if (!request.headers.accept?.includes("text/event-stream")) {
        throw new Refusal(ErrorCode.NOT_ACCEPTABLE, "Accept must allow text/event-stream");
      }
      if (!isJsonContentType(request.headers["content-type"])) throw notJsonBody();
      const params = readParams(request);
      if (params instanceof AppError) throw Refusal.from(params);
      const actor = await versions.any.authenticate(request.headers.authorization);
      if (actor.kind !== "app") {
        throw new Refusal(
          ErrorCode.UNAUTHENTICATED,
          "Subscriptions need an app's token (Authorization: Bearer)",
        );
      }
      const steps = versions.for(request.headers, actor);
      steps.admit(actor, request.ip);
      // A process that cannot hear the others (its change feed lost) could not end a stream whose
      // access is revoked elsewhere: it opens none until it hears again (the hub ended the others).
      if (services.database.changeFeed && services.database.externalWrites() === undefined) {
        throw new Refusal(
          ErrorCode.SERVICE_UNAVAILABLE,
          "The server is reconnecting to the database's change feed; subscribe again in a moment",
        );
      }
      const { operation, paid } = await steps.preparePaid(exchange.headers, params, actor, request.ip);
      announceVersion(exchange.headers, operation.version, operation.deprecation);
      if (operation.analysis.operationType !== "subscription") {
        throw new Refusal(
          ErrorCode.BAD_REQUEST,
          `Send queries and mutations to /api/graphql; ${streamPath} serves subscriptions`,
        );
      }
      await steps.charge(exchange.headers, actor, operation, request.ip, paid);
      const make = () => createContext(services, actor, request.id);
      let context = make();
      // One context object for the stream's life whose state is replaced before each event's
      // execution (`renew`): kept whole, its loaders and resolved access would serve old rows.
      const stream = new Proxy({} as GraphQLContext, { get: (_target, key) => Reflect.get(context, key) });
      const shareKey = responseCacheKey({
        view: steps.view(actor),
        query: params.query,
        operationName: params.operationName,
        variablesJson: canonicalJson(params.variables),
      });
      prepared = { actor, operation, context: stream, renew: () => (context = make()), shareKey };
      const header = request.headers.authorization;
      // A refused token ends the stream with the same code and words a request would get.
      const reauthenticate = () =>
        Promise.resolve()
          .then(() => steps.authenticate(header))
          .catch((error: unknown) => {
            throw error instanceof Refusal ? new AppError(error.code, error.message) : error;
          });
      live.open(request.id, { appId: actor.appId, ip: request.ip, reauthenticate }, (reason) => {
        ended = reason;
        endWith(reply.raw, reason);
        void body?.return();
      });
    } catch (error) {
      // A domain refusal (too many streams: RATE_LIMITED) answers like a step's.
      if (error instanceof AppError) return refuse(exchange, Refusal.from(error));
      if (error instanceof Refusal) return refuse(exchange, error);
      throw error;
    }
    reply.hijack();
    const started = Date.now();
    let events = 0;
    try {
      const [answer, init] = await handler({
        method: "POST",
        url: request.url,
        headers: { get: (key) => (key === "accept" ? "text/event-stream" : headerOf(request, key)) },
        body: request.body as Record<string, unknown>,
        raw: request,
        context: prepared,
      });
      const res = reply.raw;
      exchange.headers.applyTo(reply);
      res.writeHead(init.status, {
        ...(reply.getHeaders() as Record<string, string>),
        ...init.headers,
        "cache-control": "no-store",
        // Proxies (nginx) would otherwise hold events back to fill their buffers.
        "x-accel-buffering": "no",
      });
      if (!answer || typeof answer === "string") {
        res.end(answer);
        return;
      }
      body = answer;
      const stop = () => void answer.return();
      res.once("close", stop);
      for await (const chunk of answer) {
        if (res.writableEnded) break;
        if (res.writableLength > maxUnsentBytes) {
          live.cut(request.id, slowSubscriber());
          break;
        }
        if (chunk.startsWith("event: next")) events += 1;
        res.write(chunk);
      }
      res.off("close", stop);
      if (!res.writableEnded) res.end();
    } catch (error) {
      logger.error({ err: error, requestId: request.id }, "Subscription stream failed");
      reply.raw.destroy();
      ended = new AppError(ErrorCode.INTERNAL_SERVER_ERROR, internalError(request.id).message);
    } finally {
      live.close(request.id);
      logger.info(
        {
          requestId: request.id,
          appId: prepared.actor.kind === "app" ? prepared.actor.appId : undefined,
          ip: request.ip,
          operationName: prepared.operation.params.operationName,
          events,
          seconds: Math.round((Date.now() - started) / 1000),
          ended: ended?.code,
        },
        "Subscription stream closed",
      );
    }
    return undefined;
  }
}

function headerOf(request: FastifyRequest, key: string): string | null {
  const value = request.headers[key];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
}

/** The last event of a stream that is cut: its reason as a GraphQL error, then `complete`. */
function finalEvent(reason: AppError): string {
  const result = { errors: [{ message: reason.message, extensions: { code: reason.code } }] };
  return `event: next\ndata: ${JSON.stringify(result)}\n\nevent: complete\ndata:\n\n`;
}

/**
 * A stream the hub ended (revoked access, a slow reader, shutdown) says why in a last event and
 * closes. Its socket, if the client reads nothing (its buffers full), is destroyed a second later,
 * so an ended stream never outlives the 1 s the guide promises.
 */
function endWith(res: ServerResponse, reason: AppError): void {
  if (res.writableEnded) return;
  if (res.headersSent) res.end(finalEvent(reason));
  else res.destroy();
  setTimeout(() => {
    if (!res.writableFinished) res.destroy();
  }, 1_000).unref();
}
