import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-node";

// A trace goes to whoever runs the collector: it must not carry what a log line would not. Query
// strings carry one-time tokens (`/verify-email?token=…`, `/reset-password?token=…`) and GraphQL
// GET variables (emails, names); a manage link carries its secret in the path; and a statement's
// text may carry values written into it.
const queryKeys = new Set(["url.query", "http.query"]);
const urlKeys = new Set(["url.full", "url.path", "http.url", "http.target", "url.original"]);
const statementKeys = new Set(["db.statement", "db.query.text"]);

// Path segments that are secrets: the one after `registration/` (a manage link), and any long
// run of token characters that is not a UUID (the ids in dashboard paths).
const secretAfter = new Set(["registration"]);
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const tokenLike = /^[A-Za-z0-9_~.-]{24,}$/;

/**
 * The URL or path without its query string and with secret path segments replaced.
 * @internal Exported for its tests.
 */
export function redactUrl(value: string): string {
  const cut = value.search(/[?#]/);
  const bare = cut === -1 ? value : value.slice(0, cut);
  const segments = bare.split("/");
  const redacted = segments.map((segment, i) => {
    if (i > 0 && secretAfter.has(segments[i - 1] ?? "")) return "REDACTED";
    return tokenLike.test(segment) && !uuid.test(segment) ? "REDACTED" : segment;
  });
  return `${redacted.join("/")}${cut === -1 ? "" : "?REDACTED"}`;
}

/**
 * The statement with every literal value replaced by `?`: strings (standard, E'' and dollar-quoted)
 * and numbers. Placeholders ($1) and identifiers stay, so the statement still reads as itself.
 * @internal Exported for its tests.
 */
export function redactStatement(sql: string): string {
  return sql
    .replace(/\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g, "?")
    .replace(/[EeXxBbNn]?'(?:[^']|'')*'/g, "?")
    .replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/g, "?");
}

/** The attributes as they may leave the process. */
function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (queryKeys.has(key)) continue;
    if (typeof value === "string" && urlKeys.has(key)) out[key] = redactUrl(value);
    else if (typeof value === "string" && statementKeys.has(key)) out[key] = redactStatement(value);
    else out[key] = value;
  }
  return out;
}

/**
 * Wraps the exporter so every span leaves with redacted attributes, whichever instrumentation set
 * them (http, Fastify, pg, ours): one place to check instead of each instrumentation's options.
 */
export class RedactingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    const redacted = spans.map(
      (span): ReadableSpan =>
        // The span's own methods and fields through its prototype; only the attributes replaced.
        Object.create(span, { attributes: { value: redactAttributes(span.attributes), enumerable: true } }),
    );
    this.inner.export(redacted, done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
