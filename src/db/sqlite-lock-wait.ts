import type SQLite from "better-sqlite3";
import { type DatabaseConnection, type Driver, SqliteDialect, type SqliteStatement } from "kysely";

/** How long a SQLite write waits for another connection's write lock before SQLITE_BUSY. */
export const sqliteBusyTimeoutMs = 5000;

// Between two attempts to take the write lock: short at first (most writes hold it for a
// millisecond or two), never longer than this.
const longestPauseMs = 16;

/**
 * Runs `write` (a statement that writes, BEGIN IMMEDIATE included) with SQLite's busy handler off,
 * so that it fails at once with SQLITE_BUSY when another connection holds the write lock instead of
 * waiting inside SQLite: better-sqlite3 is synchronous, so that wait (sleeps of up to 100 ms, for up
 * to `sqliteBusyTimeoutMs`) held the whole process, cache hits included, while another process (a
 * second server of WEB_CONCURRENCY, the CLI) wrote. The caller tries again on the event loop
 * (`retriedWhenBusy`). Inside a transaction the lock is this connection's already (every transaction
 * begins IMMEDIATE), so a write there runs as it is.
 */
function withoutWaiting<T>(sqlite: SQLite.Database, write: () => T): T {
  if (sqlite.inTransaction) return write();
  // SQLite applies this pragma when it is prepared, not when it runs: a prepared statement of it
  // would set the value once. A few µs per write outside a transaction.
  sqlite.pragma("busy_timeout = 0");
  try {
    return write();
  } finally {
    sqlite.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
  }
}

/**
 * `statement` as Kysely runs it, never waiting inside SQLite for the write lock (see withoutWaiting):
 * for BEGIN IMMEDIATE and statements that write. better-sqlite3's `readonly` tells the latter (a
 * write with RETURNING is a `reader`, it returns rows); it calls BEGIN read-only, so BEGIN is named.
 */
export function withoutBusyWait(sqlite: SQLite.Database, statement: SQLite.Statement): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => withoutWaiting(sqlite, () => statement.all(parameters)),
    run: (parameters) => withoutWaiting(sqlite, () => statement.run(parameters)),
    iterate: (parameters) => statement.iterate(parameters),
  };
}

/**
 * `attempt()`, tried again after pauses of 1–16 ms on the event loop while it fails with SQLITE_BUSY,
 * until `sqliteBusyTimeoutMs` have passed since the first failure; then that SQLITE_BUSY is thrown as
 * before. Meanwhile this process answers its other requests.
 */
async function retriedWhenBusy<T>(attempt: () => Promise<T>): Promise<T> {
  let giveUpAt: number | undefined;
  for (let pause = 1; ; pause = Math.min(pause * 2, longestPauseMs)) {
    try {
      return await attempt();
    } catch (error) {
      giveUpAt ??= Date.now() + sqliteBusyTimeoutMs;
      if ((error as { code?: unknown } | null)?.code !== "SQLITE_BUSY" || Date.now() >= giveUpAt) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Kysely's SQLite dialect, whose statements wait for another connection's write lock on the event
 * loop (`retriedWhenBusy`) rather than inside SQLite: transactions (BEGIN IMMEDIATE) and writes
 * outside them alike, so no caller needs a retry of its own. A statement that failed with
 * SQLITE_BUSY did nothing, so trying it again is safe.
 */
export class WaitingForLockDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const waiting = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      const connection = await acquire();
      // The driver has one connection, handed out again and again: changed the first time.
      if (!waiting.has(connection)) {
        const execute = connection.executeQuery.bind(connection);
        connection.executeQuery = (query) => retriedWhenBusy(() => execute(query));
        waiting.add(connection);
      }
      return connection;
    };
    return driver;
  }
}
