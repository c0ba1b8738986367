import pg from "pg";
import { AppError, ErrorCode } from "../errors.js";

/** Seconds a client is told to wait (`Retry-After`) while the database is away. */
export const databaseRetryAfterSeconds = 5;

/** The database cannot be reached right now: the API answers 503 SERVICE_UNAVAILABLE, never 500. */
export class DatabaseUnavailableError extends AppError {
  constructor(cause?: unknown) {
    super(ErrorCode.SERVICE_UNAVAILABLE, "The database is unavailable; retry shortly", {
      retryAfterSeconds: databaseRetryAfterSeconds,
    });
    this.name = "DatabaseUnavailableError";
    // Kept for the log only: the caller sees the message above, never the driver's.
    this.cause = cause;
  }
}

/**
 * Every pooled PostgreSQL connection stayed in use for the whole connect timeout: this server is
 * overloaded (writes waiting on a lock another connection holds, say) while the database answers.
 * 503 as for an outage, since a retry may succeed, but not an outage: the circuit stays closed, so
 * other requests, /readyz and the metrics carry on. Counting it as one let anything that held every
 * connection for five seconds fail every request for the next five.
 */
export class DatabaseBusyError extends AppError {
  constructor(cause?: unknown) {
    super(ErrorCode.SERVICE_UNAVAILABLE, "The server is busy; retry shortly", {
      reason: "BUSY",
      retryAfterSeconds: busyRetryAfterSeconds,
    });
    this.name = "DatabaseBusyError";
    this.cause = cause;
  }
}

const busyRetryAfterSeconds = 1;

/** Whether `error` is pg-pool's refusal after waiting for a free connection (the pool is full, not down). */
export function isPoolBusyError(error: unknown): boolean {
  return error instanceof Error && error.message === "timeout exceeded when trying to connect";
}

/**
 * PostgreSQL cancelled a statement that ran past the connection's `statement_timeout`, which is set
 * below the request deadline (openDatabase's `statementTimeoutMs`): the request has run out of time,
 * and its transaction is rolled back. The API answers 503 TIMEOUT, as for a request cut off by its
 * own deadline, not 500: nothing is broken, a retry later may succeed.
 */
export class StatementTimeoutError extends AppError {
  constructor(cause?: unknown) {
    super(ErrorCode.TIMEOUT, "The request took too long; its changes were rolled back");
    this.name = "StatementTimeoutError";
    this.cause = cause;
  }
}

/** Whether `error` is PostgreSQL's query_canceled (57014): statement_timeout, or an operator's cancel. */
export function isStatementTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "57014";
}

/** Seconds a client is told to wait after a write refused for lack of disk space: an operator must act. */
const diskFullRetryAfterSeconds = 60;

/**
 * The database refused a write because its disk is full (SQLite SQLITE_FULL, PostgreSQL 53100
 * disk_full). The transaction was rolled back and nothing is corrupted; reads keep working. The API
 * answers 503 SERVICE_UNAVAILABLE with `reason: "DISK_FULL"` (a retry later may succeed, so not 500).
 */
export class DiskFullError extends AppError {
  constructor(cause?: unknown) {
    super(
      ErrorCode.SERVICE_UNAVAILABLE,
      "The database's disk is full, so the change was not saved; reading still works. Retry later",
      { reason: "DISK_FULL", retryAfterSeconds: diskFullRetryAfterSeconds },
    );
    this.name = "DiskFullError";
    this.cause = cause;
  }
}

/** Whether `error` is the database's "no space left" refusal of a write. */
export function isDiskFullError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_FULL" || code === "53100";
}

// Node socket errors of a connection that cannot be opened or was cut.
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// SQLSTATEs meaning "the server is going away or not accepting yet" (class 08 is handled below):
// admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
const unavailableStates = new Set(["57P01", "57P02", "57P03", "53300"]);
// pg raises these without a code. A new pooled connection that times out ends as "Connection
// terminated due to connection timeout", a lone client's (the readiness probe's) as "timeout
// expired"; a full pool's timeout is not a connection failure (DatabaseBusyError).
const driverMessages =
  /Connection terminated|Client has encountered a connection error|Connection refused|^timeout expired$/i;

/** Whether `error` means the database connection failed (as opposed to a bad query or a constraint). */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (socketCodes.has(code) || unavailableStates.has(code) || code.startsWith("08")) return true;
  }
  if (error instanceof AggregateError && error.errors.some(isConnectionError)) return true;
  return driverMessages.test(error.message);
}

/** What /readyz and the metrics report about the database link. */
export interface DatabaseHealthState {
  status: "up" | "down";
  /** The driver's message for the failure that took it down (for operators; never shown to API callers). */
  lastError: string | undefined;
  /** When the status last changed (epoch ms). */
  since: number;
}

/**
 * A circuit breaker over the database link. Once a connection fails, requests fail at once with
 * DatabaseUnavailableError instead of each waiting for its own connection attempt (up to the
 * connect timeout when the network drops packets); one attempt per `probeIntervalMs` goes through,
 * and the first that succeeds closes the circuit again.
 */
export class DatabaseHealth {
  private state: DatabaseHealthState = { status: "up", lastError: undefined, since: Date.now() };
  private lastAttempt = 0;
  private readonly listeners = new Set<(state: DatabaseHealthState) => void>();

  constructor(private readonly probeIntervalMs = 1000) {}

  /** The current state (a copy). */
  get current(): DatabaseHealthState {
    return { ...this.state };
  }

  /** Calls `listener` on every change of status (the server logs it once per outage). */
  onChange(listener: (state: DatabaseHealthState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether a new connection may be tried now: always while up, once per probe interval while down. */
  allowAttempt(): boolean {
    if (this.state.status === "up") return true;
    const now = Date.now();
    if (now - this.lastAttempt < this.probeIntervalMs) return false;
    this.lastAttempt = now;
    return true;
  }

  /** Records a connection failure. */
  markDown(error: unknown): void {
    if (this.state.status === "down") return;
    this.lastAttempt = Date.now();
    this.set({
      status: "down",
      lastError: error instanceof Error ? error.message : String(error),
      since: Date.now(),
    });
  }

  /** Records a working connection. */
  markUp(): void {
    if (this.state.status === "up") return;
    this.set({ status: "up", lastError: undefined, since: Date.now() });
  }

  private set(state: DatabaseHealthState): void {
    this.state = state;
    for (const listener of this.listeners) listener({ ...state });
  }
}

/** How long the answer of a probe on a connection of its own is reused once it came. */
const asideProbeReuseMs = 1000;

// SQLSTATE of a connection refused for want of a slot (max_connections, or the role's limit).
const tooManyConnections = "53300";

/** The `application_name` of that connection. */
const asideProbeName = "eventgraph readiness probe";

/**
 * `select 1` on a connection of its own, for /readyz while every pooled connection is in use (a
 * burst, or writes waiting on a lock): waiting for a pooled one outlasted the probe's 2 s, so a
 * load balancer took out a process that was only busy, and in a cluster sharing one database, all
 * of them at once. /readyz is public, so one probe runs at a time (a slow connection attempt included)
 * and its answer is reused for a second after it came: a flood of probes opens one connection a
 * second, not one each.
 */
export function asideProbe(url: string, health: DatabaseHealth): () => Promise<void> {
  let last: { answer: Promise<void>; settledAt: number | undefined } | undefined;
  return () => {
    if (last && (last.settledAt === undefined || Date.now() - last.settledAt < asideProbeReuseMs)) {
      return last.answer;
    }
    // Named, so an operator can tell it from the pool's sessions in pg_stat_activity. Both waits are
    // bounded, so a probe always settles and the next one can ask again.
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 2000,
      query_timeout: 2000,
      application_name: asideProbeName,
    });
    // The client's own errors (the server going away meanwhile) reject the query; none may go unheard.
    client.on("error", () => {});
    const probe: { answer: Promise<void>; settledAt: number | undefined } = {
      answer: client
        .connect()
        .then(() => client.query("select 1"))
        .then(
          () => health.markUp(),
          (error: unknown) => {
            // No connection slot left (too_many_connections) is the database answering while busy,
            // as our own pool is: taking it for down would open the circuit breaker and fail every
            // request whose pooled connection works, the fault DatabaseBusyError exists to avoid.
            if ((error as { code?: unknown }).code === tooManyConnections) return;
            if (isConnectionError(error)) health.markDown(error);
            throw error;
          },
        )
        .finally(() => {
          probe.settledAt = Date.now();
          return client.end().catch(() => {});
        }),
      settledAt: undefined,
    };
    // Reused answers are awaited by later probes; this keeps a failure nobody awaits yet handled.
    probe.answer.catch(() => {});
    last = probe;
    return probe.answer;
  };
}
