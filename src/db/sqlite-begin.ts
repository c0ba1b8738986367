import type SQLite from "better-sqlite3";
import { type DatabaseConnection, type Driver, SqliteDialect, type SqliteStatement } from "kysely";

/** How long a SQLite write waits for another connection's write lock before SQLITE_BUSY. */
export const sqliteBusyTimeoutMs = 5000;

// Between two attempts to take the write lock: short at first (most writes hold it for a
// millisecond or two), never longer than this.
const longestPauseMs = 16;

/**
 * BEGIN IMMEDIATE (every transaction here writes, see withStatementCache) that fails at once with
 * SQLITE_BUSY when another connection holds the write lock, instead of waiting in SQLite's busy
 * handler: better-sqlite3 is synchronous, so that wait (sleeps of up to 100 ms, for up to
 * `sqliteBusyTimeoutMs`) held the whole process, cache hits included, while another process (a
 * second server of WEB_CONCURRENCY, the CLI) wrote. WaitingForLockDialect waits asynchronously.
 */
export function beginWithoutWaiting(sqlite: SQLite.Database): SqliteStatement {
  const begin = sqlite.prepare("begin immediate");
  return {
    reader: false,
    all: () => [],
    run: () => {
      // SQLite applies this pragma when it is prepared, not when it runs: a prepared statement of it
      // would set the value once. A few µs per transaction.
      sqlite.pragma("busy_timeout = 0");
      try {
        return begin.run();
      } finally {
        sqlite.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
      }
    },
    iterate: () => [][Symbol.iterator](),
  };
}

/**
 * Kysely's SQLite dialect, whose transactions wait for another connection's write lock on the event
 * loop: BEGIN (beginWithoutWaiting) is tried again after a pause, until `sqliteBusyTimeoutMs` have
 * passed. Meanwhile this process answers its other requests. Every `db.transaction()` goes through
 * here, so no caller needs a retry of its own.
 */
export class WaitingForLockDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const begin = driver.beginTransaction.bind(driver);
    driver.beginTransaction = async (connection: DatabaseConnection, settings) => {
      const giveUpAt = Date.now() + sqliteBusyTimeoutMs;
      for (let pause = 1; ; pause = Math.min(pause * 2, longestPauseMs)) {
        try {
          return await begin(connection, settings);
        } catch (error) {
          if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= giveUpAt) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    };
    return driver;
  }
}
