import { register } from "node:module";
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { Config } from "../config.js";
import { RedactingExporter } from "./redact.js";
import { enableOperationSpans, requestIdAttribute } from "./spans.js";

// Paths a load balancer or Prometheus polls every few seconds: spans of them would drown the rest.
const unTracedPaths = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Starts the OpenTelemetry SDK: spans of incoming HTTP requests, Fastify routes and PostgreSQL
 * queries, and the GraphQL operation spans of `spans.ts`, exported over OTLP/HTTP (JSON) to
 * `<endpoint>/v1/traces`. Loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set, and must run before
 * `node:http`, Fastify and `pg` are imported (src/telemetry/launch.ts): instrumentations patch
 * modules as they load, and ES modules only through the loader hook registered here.
 */
export function startTracing(tracing: NonNullable<Config["tracing"]>): { shutdown(): Promise<void> } {
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": tracing.serviceName }),
    spanProcessors: [
      // A short delay keeps spans of a process that is stopped (SIGTERM exits at once) mostly sent.
      // Every span leaves through the redaction (redact.ts): no query string, token or value.
      new BatchSpanProcessor(
        new RedactingExporter(new OTLPTraceExporter({ url: `${tracing.endpoint}/v1/traces` })),
        { scheduledDelayMillis: 1000 },
      ),
    ],
  });
  provider.register();
  enableOperationSpans();
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => unTracedPaths.has((request.url ?? "").split("?")[0] ?? ""),
        // Outgoing calls are the exporter's own posts (and SMTP is not HTTP): spans of them would
        // be exported in turn, forever.
        ignoreOutgoingRequestHook: () => true,
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: (route) => unTracedPaths.has(route.url),
        requestHook: (span, request) => span.setAttribute(requestIdAttribute, request.id),
      }),
      // Statements are recorded with their SQL text (parameters are not); values written into the
      // text are replaced on export (redact.ts).
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
