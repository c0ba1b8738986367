import { trace } from "@opentelemetry/api";
import type { FastifyBaseLogger } from "fastify";
import { type Bindings, type ChildLoggerOptions, type Level, type Logger, pino } from "pino";

export type { Logger };

// Anything that can carry a credential is removed before a line is written: API tokens travel in
// `Authorization`, dashboard sessions in cookies.
const redact = {
  paths: [
    "req.headers.authorization",
    "req.headers.cookie",
    'res.headers["set-cookie"]',
    "headers.authorization",
    "headers.cookie",
    "token",
    "password",
  ],
  censor: "[redacted]",
};

// Tokens in a query string are ignored by the API but would still reach the log through the URL.
const secretInUrl = /(evg_[A-Za-z0-9]+|([?&](?:token|access_token|password)=)[^&#]*)/g;

/** Removes tokens and secret query parameters from a URL before it is logged. */
function redactUrlSecrets(url: string): string {
  return url.replace(secretInUrl, (match, _all, param: string | undefined) =>
    param ? `${param}[redacted]` : match.startsWith("evg_") ? "[redacted]" : match,
  );
}

/** The process logger: JSON lines on stdout (or the given destination), secrets redacted. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact,
      // With tracing on, a line written inside a traced request names its trace, so an operator can
      // go from a log line to the trace and back (lines of a request carry its `reqId` either way).
      // Without the SDK there is never an active span: one function call per line.
      mixin() {
        const span = trace.getActiveSpan();
        if (!span) return {};
        const { traceId, spanId } = span.spanContext();
        return { traceId, spanId };
      },
      hooks: {
        // Messages can quote a URL too (Fastify's "Route GET:/x?token=… not found"): scrub them alike.
        logMethod(args, method) {
          const scrubbed = args.map((arg: unknown) =>
            typeof arg === "string" ? redactUrlSecrets(arg) : arg,
          );
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          url: redactUrlSecrets(req.url),
          requestId: req.id,
        }),
      },
    },
    destination ?? process.stdout,
  );
}

/**
 * Fastify's `childLoggerFactory`: the logger of a request is built only when it writes a line at an
 * enabled level. Fastify asks for one per request, and at LOG_LEVEL=warn almost no request writes
 * anything, while building a pino child (bindings serialized, prototype chain) is a measurable part
 * of a cached answer's cost.
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const parent = logger as Logger;
  // A route with its own level needs the real child to decide; those are few (static assets).
  if (options.level !== undefined) return parent.child(bindings, options);
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}

// One object per request; the pino child behind it exists only once a line is written.
class LazyChildLogger {
  private real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }

  error(...args: unknown[]): void {
    this.write("error", args);
  }

  warn(...args: unknown[]): void {
    this.write("warn", args);
  }

  info(...args: unknown[]): void {
    this.write("info", args);
  }

  debug(...args: unknown[]): void {
    this.write("debug", args);
  }

  trace(...args: unknown[]): void {
    this.write("trace", args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.parent.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  private logger(): Logger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }
}
