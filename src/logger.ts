import { type Logger, pino } from "pino";

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
export function redactUrlSecrets(url: string): string {
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
