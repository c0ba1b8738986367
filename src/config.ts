import { z } from "zod";

/** Everything the service reads from its environment, parsed once at start-up. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  /**
   * Without SMTP, whether an unsent email's link (verification, invitation, manage link) is written
   * to the log: only on a development server, one whose BASE_URL is unset (http://localhost:PORT).
   */
  mailLinksInLog: boolean;
  /** The most emails one server process hands to the SMTP server per second (ticket emails). */
  mailPerSecond: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  webConcurrency: number;
  trustProxy: boolean | string;
  /** `GET /metrics`: off unless a bearer token (main port) or a localhost-only port is set. */
  metrics: {
    /** Bearer token that /metrics on the main port requires; undefined: not served there. */
    token: string | undefined;
    /** Port of a second listener on 127.0.0.1 serving /metrics without a token (0: any free port). */
    port: number | undefined;
  };
  /** OpenTelemetry traces: undefined unless OTEL_EXPORTER_OTLP_ENDPOINT is set (then the SDK is loaded). */
  tracing: { endpoint: string; serviceName: string } | undefined;
  limits: {
    appPointsPerHour: number;
    publicPointsPerHour: number;
    /** New Idempotency-Keys an app may store per hour: bounds the keys table (graphql/idempotency.ts). */
    idempotencyKeysPerHour: number;
    maxQueryCost: number;
    maxQueryDepth: number;
    maxBodyBytes: number;
    /** Longest an API operation may run before it is cut off (TIMEOUT) and its writes rolled back. */
    requestTimeoutMs: number;
    /** Open subscription streams at most, per app and per client IP, on each process (docs/guides/14-subscriptions.md). */
    streamsPerApp: number;
    streamsPerIp: number;
  };
  /**
   * scrypt's cost (N) for new password hashes: 16384. No environment variable sets it; only the
   * tests' own config lowers it (test/helpers/test-services.ts), where each run hashes over a thousand
   * passwords. A hash keeps its N, so it verifies whatever the setting.
   */
  passwordCost: number;
  /** Outbound webhooks (docs/guides/09-webhooks.md). */
  webhooks: {
    /** Lets endpoints use http:// and private, loopback and link-local addresses (development, tests). */
    allowPrivateNetworks: boolean;
    /** Waits before each retry, in seconds; after the last one a delivery is FAILED. */
    retryDelaysSeconds: number[];
    /** How long a receiver has to answer one request. */
    timeoutMs: number;
    /** Requests one process sends to one endpoint at once (different objects in parallel). */
    maxInFlight: number;
  };
  /** Connection limits of the HTTP server (docs/security.md). */
  http: {
    /** Longest a client may take to send a whole request, headers and body. */
    bodyTimeoutMs: number;
    /** Longest a client may take to send the request headers. */
    headersTimeoutMs: number;
    /** How long an idle keep-alive connection stays open. */
    keepAliveTimeoutMs: number;
    /** Open connections at most; further ones are closed at once. */
    maxConnections: number;
  };
  /** Days an audit-log entry is kept before the server prunes it (1 year by default). */
  auditRetentionDays: number;
  /**
   * SQLite's `synchronous` (SQLITE_SYNCHRONOUS): FULL, the default, keeps every acknowledged write
   * through a power loss; NORMAL may lose the last ones (openDatabase). Ignored on PostgreSQL.
   */
  sqliteSynchronous: "FULL" | "NORMAL";
  /** Which performance mechanisms are on (EVENTGRAPH_FAST_PATHS); each checks its own in one place. */
  fastPaths: FastPaths;
  /** Card payments (docs/payments.md). */
  payments: {
    /** Where the Stripe API is reached (STRIPE_API_BASE): Stripe's own unless a proxy or a local stand-in is named. */
    stripeApiBase: string;
    /**
     * The server key that encrypts the providers' keys at rest (PAYMENT_KEYS_SECRET). Unset: one is
     * generated into the database, which protects nothing against a stolen backup of it.
     */
    keysSecret: string | undefined;
  };
  /** Single sign-on through an OpenID Connect provider (docs/operations.md); undefined: passwords only. */
  oidc: OidcConfig | undefined;
}

/** The OpenID Connect provider organizers log in through (OIDC_*). */
export interface OidcConfig {
  /** The issuer URL; its `/.well-known/openid-configuration` is read on the first log-in. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Shown on the button: "Log in with <name>". */
  name: string;
  /** OIDC_ONLY: password log-in, sign-up and reset are refused. */
  only: boolean;
}

/**
 * The performance mechanisms that can be switched off, each to its plain path: to bisect a bug to
 * one of them, and so that CI proves the plain path correct (`EVENTGRAPH_FAST_PATHS=off`).
 */
const fastPathNames = [
  "hit-lane",
  "group-commit",
  "projection",
  "execution-slots",
  "jit",
  "remembered-credentials",
] as const;
type FastPathName = (typeof fastPathNames)[number];
export type FastPaths = Readonly<Record<FastPathName, boolean>>;

// Unset: every one on. `off`: every one off. Otherwise names to turn off, each with a `-`.
const fastPathsPattern = new RegExp(`^(off|-(${fastPathNames.join("|")})(,-(${fastPathNames.join("|")}))*)$`);

function parseFastPaths(value: string | undefined): FastPaths {
  const off = value === "off" ? fastPathNames : (value?.split(",").map((name) => name.slice(1)) ?? []);
  const on = (name: FastPathName) => !(off as readonly string[]).includes(name);
  return Object.fromEntries(fastPathNames.map((name) => [name, on(name)])) as Record<FastPathName, boolean>;
}

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const databaseUrl = z
  .string()
  .default("sqlite:./data/eventgraph.sqlite")
  .refine((url) => /^sqlite:.+/.test(url) || /^postgres(ql)?:\/\/.+/.test(url), {
    message: "must be sqlite:<path> or postgres://user@host:port/database",
  });

// Tokens and the client secret travel to the issuer: https, except on this machine (development, tests).
const oidcIssuer = z
  .url({ protocol: /^https?$/ })
  .refine((url) => url.startsWith("https:") || loopbackUrl(url), {
    message: "must be an https:// URL (http:// only for localhost)",
  });

function loopbackUrl(url: string): boolean {
  // zod runs this refinement even after the URL check failed.
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default("127.0.0.1"),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: databaseUrl,
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, "must be redis://host:port")
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/.+/, "must be smtp://user:pass@host:port")
    .optional(),
  MAIL_FROM: z.string().min(3).default("Eventgraph <no-reply@eventgraph.local>"),
  MAIL_PER_SECOND: z.coerce.number().positive().max(1_000).default(5),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  WEB_CONCURRENCY: positiveInt(1),
  TRUST_PROXY: z.string().optional(),
  RATE_LIMIT_APP_POINTS_PER_HOUR: positiveInt(10_000),
  RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: positiveInt(1_000),
  RATE_LIMIT_IDEMPOTENCY_KEYS_PER_HOUR: positiveInt(2_000),
  MAX_QUERY_COST: positiveInt(50_000),
  MAX_QUERY_DEPTH: positiveInt(15),
  MAX_BODY_BYTES: positiveInt(100 * 1024),
  REQUEST_TIMEOUT_MS: positiveInt(10_000),
  STREAMS_PER_APP: positiveInt(50),
  STREAMS_PER_IP: positiveInt(100),
  // Long enough not to be guessed: /metrics reveals traffic and error rates.
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // The OTLP/HTTP base URL, as the OpenTelemetry spec names it; spans go to `<endpoint>/v1/traces`.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\/.+/, "must be http(s)://host:port of an OTLP/HTTP receiver")
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("eventgraph"),
  BODY_TIMEOUT_MS: positiveInt(30_000),
  HEADERS_TIMEOUT_MS: positiveInt(10_000),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000),
  MAX_CONNECTIONS: positiveInt(1_000),
  AUDIT_RETENTION_DAYS: positiveInt(365),
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false", "1", "0"]).default("false"),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, "must be seconds separated by commas, e.g. 5,30,120")
    .default("5,30,120,600,1800,3600,10800,21600,43200"),
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
  // Each request holds a socket and a rendered payload: a bound, so one app cannot take a process's sockets.
  // 64: 500 events a second to a receiver answering in 50 ms need 25 at once, and each slot's cycle is
  // the 50 ms plus its claim, rendering and bookkeeping (~30 ms measured on a busy host: 32 slots gave
  // ~400 a second, 64 gave ~730, docs/performance.md). How much a receiver takes is the app's to say,
  // by answering slower or failing, as with Shopify's and GitHub's concurrent deliveries.
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(256).default(64),
  OIDC_ISSUER: oidcIssuer.optional(),
  OIDC_CLIENT_ID: z.string().max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().max(2000).optional(),
  OIDC_NAME: z.string().min(1).max(60).default("single sign-on"),
  OIDC_ONLY: z.enum(["true", "false", "1", "0"]).default("false"),
  EVENTGRAPH_FAST_PATHS: z
    .string()
    .transform((v) => v.replace(/\s+/g, ""))
    .refine((v) => fastPathsPattern.test(v), {
      message: `must be off, or names to turn off each with a "-" separated by commas (${fastPathNames.join(", ")})`,
    })
    .optional(),
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).default("https://api.stripe.com"),
  // A key for AES-256 is derived from it: long enough to carry 256 bits of randomness.
  PAYMENT_KEYS_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
});

/** Raised when the environment is invalid; the message lists every problem, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

// Empty strings count as unset so `PORT= npm start` behaves like no PORT at all.
function withoutEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => Boolean(e[1])));
}

function parseTrustProxy(value: string | undefined): boolean | string {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  // Anything else is handed to Fastify as a list of trusted addresses or CIDR ranges.
  return value;
}

/** The OIDC_* variables that belong together, each missing one named (one line each). */
function oidcProblems(e: z.output<typeof envSchema>): string[] {
  const only = e.OIDC_ONLY === "true" || e.OIDC_ONLY === "1";
  const parts = {
    OIDC_ISSUER: e.OIDC_ISSUER,
    OIDC_CLIENT_ID: e.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET,
  };
  const set = Object.values(parts).some((v) => v !== undefined);
  if (!set && !only) return [];
  const reason = set
    ? "single sign-on needs all three OIDC variables"
    : "OIDC_ONLY=true needs single sign-on";
  return Object.entries(parts)
    .filter(([, value]) => value === undefined)
    .map(([name]) => `${name}: must be set (${reason})`);
}

function oidcConfig(e: z.output<typeof envSchema>): OidcConfig | undefined {
  if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET) return undefined;
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    name: e.OIDC_NAME,
    only: e.OIDC_ONLY === "true" || e.OIDC_ONLY === "1",
  };
}

/** Variable names the environment may set (PRODUCT.md §7). */
type EnvName = keyof z.input<typeof envSchema>;

/**
 * Adjustments a command makes to the environment: `defaults` apply only where a variable is unset
 * (the demo's own database file), `overrides` win over the environment (a `--port` flag).
 */
export interface ConfigOptions {
  defaults?: Partial<Record<EnvName, string>>;
  overrides?: Partial<Record<EnvName, string>>;
}

/** Parses the environment into a Config or throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: ConfigOptions = {}): Config {
  const source = { ...options.defaults, ...withoutEmpty(env), ...options.overrides };
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) =>
          `${issue.path.join(".")}: ${issue.message} (got ${JSON.stringify(source[issue.path[0] as EnvName])})`,
      ),
    );
  }
  const e = parsed.data;
  const problems = oidcProblems(e);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailPerSecond: e.MAIL_PER_SECOND,
    mailLinksInLog: !e.SMTP_URL && e.BASE_URL === undefined,
    logLevel: e.LOG_LEVEL,
    webConcurrency: e.WEB_CONCURRENCY,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, ""), serviceName: e.OTEL_SERVICE_NAME }
      : undefined,
    limits: {
      appPointsPerHour: e.RATE_LIMIT_APP_POINTS_PER_HOUR,
      publicPointsPerHour: e.RATE_LIMIT_PUBLIC_POINTS_PER_HOUR,
      idempotencyKeysPerHour: e.RATE_LIMIT_IDEMPOTENCY_KEYS_PER_HOUR,
      maxQueryCost: e.MAX_QUERY_COST,
      maxQueryDepth: e.MAX_QUERY_DEPTH,
      maxBodyBytes: e.MAX_BODY_BYTES,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      streamsPerApp: e.STREAMS_PER_APP,
      streamsPerIp: e.STREAMS_PER_IP,
    },
    passwordCost: 16384,
    webhooks: {
      allowPrivateNetworks:
        e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true" || e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "1",
      retryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS.split(",").map((d) => Number(d.trim())),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
    },
    http: {
      bodyTimeoutMs: e.BODY_TIMEOUT_MS,
      // Node refuses a headers timeout above the whole-request timeout.
      headersTimeoutMs: Math.min(e.HEADERS_TIMEOUT_MS, e.BODY_TIMEOUT_MS),
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.MAX_CONNECTIONS,
    },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    fastPaths: parseFastPaths(e.EVENTGRAPH_FAST_PATHS),
    oidc: oidcConfig(e),
    payments: { stripeApiBase: e.STRIPE_API_BASE.replace(/\/+$/, ""), keysSecret: e.PAYMENT_KEYS_SECRET },
  };
}
