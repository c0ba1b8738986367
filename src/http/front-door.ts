import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { type FastifyReply, type FastifyRequest, type FastifyServerFactory, LogController } from "fastify";
import type { Logger } from "../logger.js";

/** What answers a request from Node's HTTP server: Fastify's handler, or a lane in front of it. */
type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A way in that answers some requests before Fastify sees them: it either answers a request
 * itself or calls `handOn` with it, untouched but for a body it read (src/graphql/hit-lane.ts).
 */
export type Lane = (request: IncomingMessage, response: ServerResponse, handOn: RequestHandler) => void;

/**
 * A request a lane began: its id and the moment it arrived. When the lane hands it on, Fastify
 * takes both over (`requestId`, `ArrivalLogController`, `elapsedMs`), so its log lines, its
 * `x-request-id` and its duration are those of the whole request, body upload included.
 */
export interface Arrival {
  id: string;
  at: number;
}

const arrivals = Symbol("eventgraph.arrival");
type Arrived = IncomingMessage & { [arrivals]?: Arrival };

/** Marks `request` as begun by a lane, now. */
export function arrive(request: IncomingMessage): Arrival {
  const arrival = { id: randomUUID(), at: performance.now() };
  (request as Arrived)[arrivals] = arrival;
  return arrival;
}

function arrivalOf(request: IncomingMessage): Arrival | undefined {
  return (request as Arrived)[arrivals];
}

/** Milliseconds since the request arrived: Fastify's `elapsed` unless a lane began it earlier. */
export function elapsedMs(request: FastifyRequest, reply: FastifyReply): number {
  const arrival = arrivalOf(request.raw);
  return arrival ? performance.now() - arrival.at : reply.elapsedTime;
}

// Fastify's bare answer to a request arriving while it closes (its `return503OnClosing`).
const unavailable = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

/**
 * The HTTP server of the app: the one Fastify would create itself, from the same options, with
 * room for one lane in front of Fastify's handler: a stored API answer served through Fastify cost
 * several times what a bare `node:http` server spends, so the API's cache hits take the lane.
 */
export class FrontDoor {
  private lane: Lane | undefined;
  private closing = false;
  private readonly batchListeners: (() => void)[] = [];
  private inBatch = false;

  constructor(private readonly logger: Logger) {}

  /** Fastify's `serverFactory` option. */
  readonly serverFactory: FastifyServerFactory = (handler, options) => {
    const server = http.createServer(options.http as http.ServerOptions, (request, response) => {
      // Decided on arrival (Fastify's own `return503OnClosing` is off): a request that arrived
      // before shutdown is answered even when a lane hands it on after shutdown began.
      if (!this.inBatch) this.batchBegins();
      if (this.closing) this.refuse(request, response);
      else if (this.lane) this.lane(request, response, handler);
      else handler(request, response);
    });
    // As Fastify sets them on the server it creates (lib/server.js, getServerInstance).
    server.keepAliveTimeout = options.keepAliveTimeout as number;
    server.requestTimeout = options.requestTimeout as number;
    server.setTimeout(options.connectionTimeout as number);
    const maxRequestsPerSocket = options.maxRequestsPerSocket as number;
    if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
    return server;
  };

  /**
   * Calls `listener` with the first request of each batch the event loop hands over (requests
   * received together, before the first of them is handled): what was read before may be older
   * than they are (the response cache's epoch).
   */
  onBatch(listener: () => void): void {
    this.batchListeners.push(listener);
  }

  private batchBegins(): void {
    this.inBatch = true;
    setImmediate(() => {
      this.inBatch = false;
    });
    for (const listener of this.batchListeners) listener();
  }

  /** Fastify's `genReqId`: a lane's request keeps the id it was given on arrival. */
  readonly requestId = (request: IncomingMessage): string => arrivalOf(request)?.id ?? randomUUID();

  /** Fastify's `logController`. */
  readonly logController = new ArrivalLogController();

  /** Puts `lane` in front of Fastify for the requests that arrive from now on. */
  use(lane: Lane): void {
    this.lane = lane;
  }

  /**
   * From the start of shutdown every new request is refused, and every answer says `Connection:
   * close`: otherwise a keep-alive connection would hold the shutdown open until the client's idle
   * timeout.
   */
  close(): void {
    this.closing = true;
  }

  /** The header fields every response carries, as a flat `[name, value, …]` list. */
  lastHeaderFields(requestId: string): string[] {
    const fields = ["x-request-id", requestId];
    if (this.closing) fields.push("connection", "close");
    return fields;
  }

  private refuse(request: IncomingMessage, response: ServerResponse): void {
    this.logger.info(
      { res: { statusCode: 503 } },
      "request aborted - refusing to accept new requests as server is closing",
    );
    const fields = ["content-type", "application/json", "content-length", String(unavailable.length)];
    if (request.httpVersionMajor < 2) fields.push("connection", "close");
    response.writeHead(503, fields);
    response.end(unavailable);
  }
}

/**
 * Fastify's request logging, for requests a lane began: their "incoming request" line was written
 * by the lane as they arrived, and their response time counts from then.
 */
class ArrivalLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!arrivalOf(request.raw)) super.incomingRequest(request, reply);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (!arrivalOf(request.raw)) super.requestCompleted(error, request, reply);
    else if (error)
      reply.log.error({ res: reply, err: error, responseTime: elapsedMs(request, reply) }, "request errored");
    else reply.log.info({ res: reply, responseTime: elapsedMs(request, reply) }, "request completed");
  }
}
