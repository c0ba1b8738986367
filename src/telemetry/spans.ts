import { INVALID_SPAN_CONTEXT, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { type DocumentNode, getOperationAST } from "graphql";

/** The span attribute holding Fastify's request id: the `reqId` of the request's log lines. */
export const requestIdAttribute = "eventgraph.request_id";

const tracer = trace.getTracer("eventgraph");

// Without the SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) every span is this non-recording one, and no
// span context is entered: a span per request through the no-op tracer was 2.5 % of a cache hit.
const untraced = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
let tracing = false;

/** Called by the SDK's start (tracing.ts): from then on GraphQL operations get real spans. */
export function enableOperationSpans(): void {
  tracing = true;
}

/** What the GraphQL span says about an operation once it is parsed and measured. */
export interface OperationDescription {
  operationType: string;
  document: DocumentNode;
  /** The request's `operationName`; the document's own name is used when it is absent. */
  operationName: string | undefined;
  cost: number;
}

/** Runs one GraphQL request inside a `graphql` span carrying the request id. */
export function inOperationSpan<T>(requestId: string, run: (span: Span) => Promise<T>): Promise<T> {
  if (!tracing) return run(untraced);
  return tracer.startActiveSpan(
    "graphql",
    { attributes: { [requestIdAttribute]: requestId } },
    async (span) => {
      try {
        return await run(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Names the span after the operation ("query Agenda") and records its type, name and cost. */
export function describeOperation(span: Span, operation: OperationDescription): void {
  if (!span.isRecording()) return;
  const name = getOperationAST(operation.document, operation.operationName)?.name?.value;
  span.updateName(`${operation.operationType} ${name ?? "anonymous"}`);
  span.setAttributes({
    "graphql.operation.type": operation.operationType,
    "graphql.operation.name": name ?? "",
    "eventgraph.graphql.cost": operation.cost,
  });
}

/** Marks the span failed with the error code the client receives (a refusal or an error in the result). */
export function recordErrorCode(span: Span, code: string): void {
  if (!span.isRecording()) return;
  span.setAttribute("eventgraph.error_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
