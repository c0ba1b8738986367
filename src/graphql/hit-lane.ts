import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import proxyAddr from "@fastify/proxy-addr";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { type Arrival, arrive, type Lane } from "../http/front-door.js";
import { rememberedBodyChars } from "../http/json-body.js";
import type { Logger } from "../logger.js";
import type { ResponseObserver } from "../metrics/metrics.routes.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { describeOperation, inOperationSpan, recordErrorCode } from "../telemetry/spans.js";
import { AnswerHeaders } from "./answer-headers.js";
import { rememberedCaller } from "./authentication.js";
import { stillCurrent } from "./cache/freshness.js";
import type { CachedAnswer } from "./cache/response-cache.js";
import type { Operation } from "./execution.js";
import { internalError, Refusal, refusalAnswer, writeInTwo, writeWhole } from "./http-answers.js";
import { isJsonContentType, type MediaType, negotiate, paramsOf } from "./http-params.js";
import type { RequestSteps } from "./request-steps.js";
import { storedAnswerParts } from "./stored-answer.js";
import { announceVersion } from "./versions/deprecations.js";
import type { VersionedSteps } from "./versions/versioned-steps.js";

/**
 * The hit lane: `POST /api/graphql` requests that the response cache answers, served before
 * Fastify sees them. Through Fastify a stored answer cost several times what a bare `node:http`
 * server spends sending the same bytes (docs/performance.md, "What each fast path buys"); the lane
 * leaves out only the framework, not a step:
 * the same request steps (request-steps.ts), the same parts of the answer (stored-answer.ts), the
 * same request id, budget, metrics and access log.
 *
 * It takes only what it can answer without reading anything new: a body of a length the cache has
 * answered before, no longer than the JSON parser remembers, which that parser has already checked
 * and parsed (the lane parses nothing), a caller known without a read (no token, or a remembered
 * one), an operation within the limits, and a stored answer still current. Anything else is handed
 * on to Fastify untouched, its body replayed (`replayHandedOnBodies`), before anything is counted
 * or charged; once the lane counts its hit it answers whatever happens, as the route does.
 */
export interface HitLaneDeps {
  config: Config;
  services: Services;
  /** The request steps of each API version, and the choice of a request's version. */
  versions: VersionedSteps;
  logger: Logger;
  /** The JSON parser's remembered bodies (src/http/json-body.ts). */
  rememberedBody: (text: string) => object | undefined;
  /** The duration histograms, while the metrics are on. */
  observe: ResponseObserver | undefined;
  /** The header fields every response carries (the front door's). */
  lastHeaderFields: (requestId: string) => string[];
}

const route = "/api/graphql";
// UTF-8 takes at most three bytes per UTF-16 unit: a body the parser may remember is no longer.
const maxBodyBytes = rememberedBodyChars * 3;
const replayed = Symbol("eventgraph.handedOnBody");
const maxViewsPerBody = 8;

type HandedOn = IncomingMessage & { [replayed]?: Buffer };

/** The lane, and what the route tells it. */
export interface HitLane {
  serve: Lane;
  /** A request the route answered from the cache: the lane reads bodies of its length from now on. */
  noteHit(request: IncomingMessage): void;
}

export function hitLane(deps: HitLaneDeps): HitLane {
  const { services, versions, logger } = deps;
  const ipOf = clientAddress(deps.config.trustProxy);
  const maxBytes = Math.min(maxBodyBytes, deps.config.limits.maxBodyBytes);
  // The lines Fastify writes for each request at LOG_LEVEL=info, written alike; a logger per
  // request is built only when they are.
  const accessLog = (id: string) => (logger.isLevelEnabled("info") ? logger.child({ reqId: id }) : undefined);
  const prepared = new WeakMap<object, Map<string, Operation | null>>();

  // Whether a request with a body of this many bytes was answered from the cache, by the route or
  // the lane: only such a body is read. A write or a miss of another length goes to Fastify unread,
  // as reading and replaying it cost a check-in a visible share of its CPU. Never cleared: at worst
  // every length is read, as without it.
  const hitLengths = new Uint8Array(maxBytes + 1);
  const noteHit = (request: IncomingMessage) => {
    const length = declaredLength(request.headers);
    if (length !== undefined && length <= maxBytes) hitLengths[length] = 1;
  };

  const serveRequest: Lane = (request, response, handOn) => {
    const { headers } = request;
    if (request.method !== "POST" || request.url !== route || !isJsonContentType(headers["content-type"]))
      return handOn(request, response);
    const length = declaredLength(headers);
    if (length === undefined || length > maxBytes || hitLengths[length] === 0)
      return handOn(request, response);
    // Begun here: the id and the clock are the request's, whoever answers it (front-door.ts).
    const arrival = arrive(request);
    accessLog(arrival.id)?.info(
      { req: { method: request.method, url: request.url, id: arrival.id } },
      "incoming request",
    );
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A client gone before its body arrived: Node closes the socket, and there is nothing to answer.
    request.on("error", () => {});
    request.on("end", () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const handOnWithBody = () => {
        (request as HandedOn)[replayed] = body;
        handOn(request, response);
      };
      serve(request, response, body, arrival).then(
        (served) => served || handOnWithBody(),
        (error: unknown) => {
          // A fault of the lane's own: before it answered, the route answers the request.
          logger.error({ err: error, reqId: arrival.id }, "hit lane failed");
          if (!response.headersSent) handOnWithBody();
        },
      );
    });
  };

  return { serve: serveRequest, noteHit };

  /** Answers `request` from the cache; false, before anything is counted, when it cannot. */
  async function serve(
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
    arrival: Arrival,
  ): Promise<boolean> {
    const media = negotiate(request.headers.accept);
    const source = deps.rememberedBody(body.toString("utf8"));
    if (!media || source === undefined) return false;
    const actor = rememberedCaller(services, request.headers.authorization);
    // A version the header names but the server does not answer is the route's to refuse.
    const steps = actor && versions.choose(request.headers, actor);
    if (!actor || !steps || steps instanceof Refusal) return false;
    const operation = operationOf(source, actor, steps);
    if (!operation) return false;
    const hit = operation.cacheKey ? services.responseCache.peek(operation.cacheKey) : undefined;
    if (!hit || !(await current(hit))) return false;
    services.responseCache.countLaneHit();
    await answer(request, response, media, actor, operation, hit, arrival, steps);
    return true;
  }

  /**
   * Whether a stored answer may be served. A version read that fails (the database away) is the
   * route's to answer, with its 503 and without a log line per request (the outage is logged once).
   */
  async function current(hit: CachedAnswer): Promise<boolean> {
    const fresh = stillCurrent(services, hit);
    if (typeof fresh === "boolean") return fresh;
    return fresh.catch(() => false);
  }

  /**
   * The operation of a remembered body for a caller, prepared once per view: the parser hands out
   * the same frozen object for the same text, and the view (the API version, and public or an app
   * with its permission list) is the response cache's own, so an app given other permissions, or
   * asking in another version, prepares anew. Preparing
   * again on every hit (the document's analysis, the variables' canonical JSON, a new cache key that
   * the cache's lookup hashed again) was about a tenth of the lane's own work. Null: a body the lane
   * does not answer (a dry run, malformed parameters, an operation the limits refuse), which the
   * route refuses or answers each time.
   */
  function operationOf(source: object, actor: Actor, steps: RequestSteps): Operation | null {
    const view = steps.view(actor);
    const views = prepared.get(source) ?? new Map<string, Operation | null>();
    const known = views.get(view);
    if (known !== undefined) return known;
    let operation: Operation | null = null;
    const params = paramsOf(source);
    if (!(params instanceof AppError) && params.extensions?.dryRun !== true) {
      try {
        operation = steps.prepare(params, actor);
      } catch {
        // Refused: the route answers it.
      }
    }
    if (views.size === 0) prepared.set(source, views);
    // A body is asked for by a few callers; a bound keeps one shared by many apps from growing.
    if (views.size < maxViewsPerBody) views.set(view, operation);
    return operation;
  }

  /** The route's steps from the budget on, for a stored answer: it answers whatever happens. */
  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    media: MediaType,
    actor: Actor,
    operation: Operation,
    hit: CachedAnswer,
    { id, at }: Arrival,
    steps: RequestSteps,
  ): Promise<void> {
    const headers = new AnswerHeaders();
    announceVersion(headers, operation.version, operation.deprecation);
    const finish = () => {
      const last = deps.lastHeaderFields(id);
      for (let i = 0; i < last.length; i += 2) headers.set(last[i] as string, last[i + 1] as string);
      return headers;
    };
    const cost = operation.analysis.cost;
    await inOperationSpan(id, async (span) => {
      describeOperation(span, {
        operationType: "query",
        document: operation.prepared.document,
        operationName: operation.params.operationName,
        cost,
      });
      try {
        const ip = ipOf(request);
        steps.admit(actor, ip);
        const budget = await steps.charge(headers, actor, operation, ip);
        const parts = await storedAnswerParts(request, headers, actor, cost, budget, hit);
        if (parts) writeInTwo(response, media, finish(), parts[0], parts[1]);
        else response.writeHead(304, finish().fields).end();
      } catch (error) {
        const refusal = error instanceof Refusal ? error : internalError(id);
        if (refusal !== error) logger.error({ err: error, reqId: id }, "GraphQL request failed");
        recordErrorCode(span, refusal.code);
        if (response.headersSent) {
          // Failed while sending: nothing more can be said on this response.
          response.destroy();
        } else {
          const [status, answerBody] = refusalAnswer(refusal, media, headers);
          writeWhole(request, response, status, media, finish(), JSON.stringify(answerBody));
        }
      }
    });
    const responseTime = performance.now() - at;
    deps.observe?.(route, "POST", response.statusCode, "query", responseTime / 1000);
    accessLog(id)?.info({ res: { statusCode: response.statusCode }, responseTime }, "request completed");
  }
}

/**
 * Gives Fastify the body of a request the lane read and handed on: the request's own stream has
 * ended, so the route's body parser reads it again from a stream of the same bytes.
 */
export function replayHandedOnBodies(scope: FastifyInstance): void {
  scope.addHook("preParsing", (request, _reply, payload, done) => {
    const body = (request.raw as HandedOn)[replayed];
    if (!body) return done(null, payload);
    // A stream of the one buffer (Readable.from would go through an async iterator per read).
    const replay = new Readable({ read() {} });
    replay.push(body);
    replay.push(null);
    done(null, replay);
  });
}

/** The Content-Length of a body sent whole, or undefined (chunked, absent, not a number). */
function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const declared = headers["content-length"];
  if (declared === undefined || headers["transfer-encoding"] !== undefined) return undefined;
  const length = Number(declared);
  return Number.isInteger(length) && length > 0 ? length : undefined;
}

/** The client's address as Fastify's `request.ip` gives it under the same TRUST_PROXY. */
function clientAddress(trustProxy: Config["trustProxy"]): (request: IncomingMessage) => string {
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? "";
  const trusted =
    trustProxy === true ? () => true : proxyAddr.compile(trustProxy.split(",").map((value) => value.trim()));
  return (request) => {
    const addresses = proxyAddr.all(request, trusted);
    return addresses[addresses.length - 1] ?? "";
  };
}
