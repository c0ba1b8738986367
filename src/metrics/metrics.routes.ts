import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Counter, Gauge, type Histogram } from "prom-client";
import type { Cluster } from "../cluster/cluster.js";
import type { Config } from "../config.js";
import type { DatabaseHandle } from "../db/database.js";
import type { ResponseCache } from "../graphql/cache/response-cache.js";
import { elapsedMs } from "../http/front-door.js";
import type { Logger } from "../logger.js";
import { collectProcessMetrics, graphqlDuration, httpDuration, metricsRegistry } from "./instruments.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the GraphQL handler once the operation is known ("" otherwise), for the metrics. */
    graphqlOperationType: string;
  }
}

/** What the gauges read at scrape time from one running app. */
interface Source {
  database: DatabaseHandle;
  cache: ResponseCache;
  cluster: Cluster | undefined;
  /** Open subscription streams (shared/live/live-hub.ts). */
  live: { readonly size: number };
}

// Every app built in this process (one in production, several in a test run): gauges add them up.
const sources = new Set<Source>();
const sum = (read: (source: Source) => number) => [...sources].reduce((total, s) => total + read(s), 0);

function defineGauges(): void {
  // Counters kept by the cache itself, copied at scrape time: nothing is added to a cache hit.
  for (const [name, help, read] of [
    ["eventgraph_response_cache_hits_total", "Response cache hits", (s: Source) => s.cache.stats().hits],
    [
      "eventgraph_response_cache_lane_hits_total",
      "Response cache hits answered before the framework (the hit lane)",
      (s: Source) => s.cache.stats().laneHits,
    ],
    [
      "eventgraph_response_cache_misses_total",
      "Response cache misses",
      (s: Source) => s.cache.stats().misses,
    ],
  ] as const) {
    new Counter({
      name,
      help,
      registers: [metricsRegistry],
      collect() {
        this.reset();
        this.inc(sum(read));
      },
    });
  }
  new Gauge({
    name: "eventgraph_response_cache_entries",
    help: "Answers held in the response cache",
    registers: [metricsRegistry],
    collect() {
      this.set(sum((s) => s.cache.stats().entries));
    },
  });
  new Gauge({
    name: "eventgraph_response_cache_bytes",
    help: "Bytes held in the response cache",
    registers: [metricsRegistry],
    collect() {
      this.set(sum((s) => s.cache.stats().bytes));
    },
  });
  new Gauge({
    name: "eventgraph_db_pool_connections",
    help: "PostgreSQL pool connections by state (total, idle, waiting clients)",
    labelNames: ["state"] as const,
    registers: [metricsRegistry],
    collect() {
      for (const state of ["total", "idle", "waiting"] as const) {
        this.set(
          { state },
          sum((s) => s.database.poolStats()?.[state] ?? 0),
        );
      }
    },
  });
  new Gauge({
    name: "eventgraph_subscription_streams",
    help: "Subscription streams and dashboard live counters open now",
    registers: [metricsRegistry],
    collect() {
      this.set(sum((s) => s.live.size));
    },
  });
  new Gauge({
    name: "eventgraph_db_up",
    help: "1 while the database answers, 0 during an outage (API requests then get 503)",
    registers: [metricsRegistry],
    collect() {
      this.set([...sources].every((s) => s.database.health.current.status === "up") ? 1 : 0);
    },
  });
  new Gauge({
    name: "eventgraph_redis_up",
    help: "1 while Redis is shared, 0 while degraded to per-process behaviour; absent without REDIS_URL",
    registers: [metricsRegistry],
    collect() {
      const states = [...sources].map((s) => s.cluster?.readiness()).filter((r) => r !== undefined);
      if (states.length > 0) this.set(states.every((r) => r.status === "ok") ? 1 : 0);
    },
  });
}

let gaugesDefined = false;

type Child = ReturnType<Histogram["labels"]>;

/** The map under `key` in `outer`, created empty the first time. */
function nested<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

/** Whether the configuration turns the metrics on. */
export function metricsEnabled(config: Config): boolean {
  return config.metrics.token !== undefined || config.metrics.port !== undefined;
}

/**
 * Records one answered request in the duration histograms: the hook's for the answers Fastify
 * sends, the API's hit lane's for its own (src/graphql/hit-lane.ts). `operationType` is "" for
 * anything but a GraphQL operation.
 */
export type ResponseObserver = (
  route: string,
  method: string,
  status: number,
  operationType: string,
  seconds: number,
) => void;

function responseObserver(): ResponseObserver {
  // Each child is made once per label combination and found again in maps nested by label, so no
  // `labels()` call (its argument objects and closure) is made per response. A child's `observe`
  // still turns its label values into a key on every call inside prom-client, twice per API request.
  const httpChildren = new Map<string, Map<string, Map<number, Child>>>();
  const graphqlChildren = new Map<string, Map<number, Child>>();
  return (route, method, status, operationType, seconds) => {
    const byStatus = nested(nested(httpChildren, route), method);
    let http = byStatus.get(status);
    if (!http) {
      http = httpDuration.labels(route, method, String(status));
      byStatus.set(status, http);
    }
    http.observe(seconds);
    if (operationType) {
      const byOperationStatus = nested(graphqlChildren, operationType);
      let graphql = byOperationStatus.get(status);
      if (!graphql) {
        graphql = graphqlDuration.labels(operationType, String(status));
        byOperationStatus.set(status, graphql);
      }
      graphql.observe(seconds);
    }
  };
}

/**
 * Counts requests and serves `GET /metrics` when METRICS_TOKEN (bearer, on the main port) or
 * METRICS_PORT (a second listener on 127.0.0.1, no token) is set; otherwise adds nothing but the
 * request field, so the hot path stays as it was.
 * Returns the observer of answered requests while the metrics are on.
 */
export async function registerMetrics(
  app: FastifyInstance,
  deps: {
    config: Config;
    database: DatabaseHandle;
    cache: ResponseCache;
    cluster: Cluster | undefined;
    live: { readonly size: number };
    logger: Logger;
  },
): Promise<ResponseObserver | undefined> {
  app.decorateRequest("graphqlOperationType", "");
  const { config } = deps;
  if (!metricsEnabled(config)) return undefined;
  collectProcessMetrics();
  if (!gaugesDefined) defineGauges();
  gaugesDefined = true;
  const source: Source = {
    database: deps.database,
    cache: deps.cache,
    cluster: deps.cluster,
    live: deps.live,
  };
  sources.add(source);

  const observe = responseObserver();
  app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done) => {
    // The route pattern, never the raw URL (unbounded label values); 404s share one label.
    const route = request.routeOptions.url ?? "unmatched";
    const seconds = elapsedMs(request, reply) / 1000;
    observe(route, request.method, reply.statusCode, request.graphqlOperationType, seconds);
    done();
  });

  const { token, port } = config.metrics;
  if (token !== undefined) {
    const expected = digest(token);
    app.get("/metrics", { logLevel: "warn" }, async (request, reply) => {
      const presented = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
      // Compared as digests, in constant time: the token's length and prefix do not leak.
      if (!presented || !timingSafeEqual(digest(presented), expected)) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="metrics"')
          .send({ error: "unauthorized" });
      }
      return reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
    });
  }

  let server: http.Server | undefined;
  if (port !== undefined) server = await listenOnLocalhost(port, deps.logger);
  app.addHook("onClose", async () => {
    sources.delete(source);
    if (server) await new Promise<void>((resolve) => server?.close(() => resolve()));
  });
  return observe;
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

// A listener of its own, bound to 127.0.0.1: a scraper on the machine (or a sidecar) reads it
// without a token, and nothing outside can reach it whatever the main HOST is.
async function listenOnLocalhost(port: number, logger: Logger): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    metricsRegistry.metrics().then(
      (text) => response.writeHead(200, { "content-type": metricsRegistry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  logger.info(
    { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}/metrics` },
    "Metrics are served",
  );
  return server;
}
