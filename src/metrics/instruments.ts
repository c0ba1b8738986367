import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus instruments, in one registry. Counters are module-level so the code
 * that counts (the GraphQL error formatter, the rate limiter, the database) needs no handle passed
 * down; they cost a few hundred nanoseconds and are served only when METRICS_TOKEN or METRICS_PORT
 * is set. Values describe this process (each worker of WEB_CONCURRENCY has its own).
 */
export const metricsRegistry = new Registry();

/** API errors by `extensions.code`; the codes are the closed ErrorCode set plus graphql-js's own. */
export const apiErrors = new Counter({
  name: "eventgraph_api_errors_total",
  help: "GraphQL API errors returned, by extensions.code",
  labelNames: ["code"] as const,
  registers: [metricsRegistry],
});

/** Requests refused with RATE_LIMITED, by kind of budget (app or ip). */
export const rateLimitRejections = new Counter({
  name: "eventgraph_rate_limit_rejections_total",
  help: "API requests refused with RATE_LIMITED, by budget kind (app, ip)",
  labelNames: ["kind"] as const,
  registers: [metricsRegistry],
});

/** Time of each SQL statement, measured by Kysely around the driver call. */
export const queryDuration = new Histogram({
  name: "eventgraph_db_query_duration_seconds",
  help: "SQL statement execution time",
  labelNames: ["engine"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
  registers: [metricsRegistry],
});

/** HTTP requests by route pattern (never the raw URL: unbounded), method and status. */
export const httpDuration = new Histogram({
  name: "eventgraph_http_request_duration_seconds",
  help: "HTTP request duration by route pattern, method and status code",
  labelNames: ["route", "method", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [metricsRegistry],
});

/** GraphQL operations by type (query, mutation, dry run) and outcome (HTTP status). */
export const graphqlDuration = new Histogram({
  name: "eventgraph_graphql_operation_duration_seconds",
  help: "GraphQL operation duration by operation type and HTTP status",
  labelNames: ["operation_type", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [metricsRegistry],
});

/** Webhook delivery attempts by outcome: delivered, retry (will be tried again), failed (gave up), cancelled. */
export const webhookDeliveries = new Counter({
  name: "eventgraph_webhook_deliveries_total",
  help: "Webhook delivery attempts by outcome (delivered, retry, failed, cancelled)",
  labelNames: ["outcome"] as const,
  registers: [metricsRegistry],
});

/** Time from the start of a webhook request to its answer (or timeout). */
export const webhookDeliveryDuration = new Histogram({
  name: "eventgraph_webhook_request_duration_seconds",
  help: "Webhook request duration, until the receiver answered or the timeout",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Deliveries waiting (PENDING) in the whole service, as last counted by this process's dispatcher. */
export const webhookQueueDepth = new Gauge({
  name: "eventgraph_webhook_queue_depth",
  help: "Webhook deliveries pending (not yet delivered, failed or cancelled), service-wide",
  registers: [metricsRegistry],
});

let defaultsCollected = false;

/** Adds Node's own metrics (event-loop lag, heap, RSS, GC) once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({
    register: metricsRegistry,
    prefix: "eventgraph_",
    eventLoopMonitoringPrecision: 20,
  });
}
