import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { FastifyServerFactory } from "fastify";

/** What answers a request from Node's HTTP server: Fastify's handler, or a lane in front of it. */
type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A way in that answers some requests before Fastify sees them: it either answers a request
 * itself or calls `handOn` with it, untouched but for a body it read (src/graphql/hit-lane.ts).
 */
export type Lane = (request: IncomingMessage, response: ServerResponse, handOn: RequestHandler) => void;

/**
 * The HTTP server of the app: the one Fastify would create itself, from the same options, with
 * room for one lane in front of Fastify's handler. Fastify's floor costs 1.3–1.5 times a bare
 * `node:http` server per request; a stored API answer served through Fastify cost 2.5–3.6 times
 * (docs/performance.md, "Round twenty-one"), so the API's cache hits take the lane.
 */
export class FrontDoor {
  private lane: Lane | undefined;
  private closing = false;

  /** Fastify's `serverFactory` option. */
  readonly serverFactory: FastifyServerFactory = (handler, options) => {
    const server = http.createServer(options.http as http.ServerOptions, (request, response) => {
      if (this.lane && !this.closing) this.lane(request, response, handler);
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

  /** Puts `lane` in front of Fastify for the requests that arrive from now on. */
  use(lane: Lane): void {
    this.lane = lane;
  }

  /**
   * From the start of shutdown every request goes to Fastify (which answers 503 to new ones), and
   * every answer says `Connection: close`: otherwise a keep-alive connection would hold the
   * shutdown open until the client's idle timeout.
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
}
