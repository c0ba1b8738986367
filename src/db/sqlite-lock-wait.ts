import { type DatabaseConnection, type Driver, SqliteDialect } from "kysely";
import { statementStarts } from "./loop-yield.js";

/** How long a SQLite statement waits for another connection's lock before SQLITE_BUSY. */
const sqliteBusyTimeoutMs = 5000;

// Between two attempts to take the write lock: short at first (most writes hold it for a
// millisecond or two), never longer than this.
const longestPauseMs = 16;

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
 * loop (`retriedWhenBusy`) rather than inside SQLite, where better-sqlite3 would hold the whole
 * process (the connection's busy_timeout is 0: openDatabase): transactions (BEGIN IMMEDIATE) and
 * statements outside them alike, so no caller needs a retry of its own. A statement that failed
 * with SQLITE_BUSY did nothing, so trying it again is safe.
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
        connection.executeQuery = (query) =>
          retriedWhenBusy(() => {
            statementStarts();
            return execute(query);
          });
        waiting.add(connection);
      }
      return connection;
    };
    return driver;
  }
}
