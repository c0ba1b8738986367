import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import {
  type Compilable,
  type CompiledQuery,
  Kysely,
  type KyselyPlugin,
  PostgresDialect,
  type SqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from "kysely";
import { LRUCache } from "lru-cache";
import pg from "pg";
import type { Config, FastPaths } from "../config.js";
import { asideProbe, DatabaseHealth, isConnectionError } from "./availability.js";
import { ChangeFeed } from "./change-feed.js";
import { type Checkpointer, checkpointInBackground } from "./checkpoints.js";
import { yieldIfLoopHeld } from "./loop-yield.js";
import { guardCheckedOut, nameStatement, ownBackends, withNamedStatements } from "./postgres-pool.js";
import type { Database as Tables } from "./schema.js";
import { type DirectStatement, type QueryLogEvent, SqliteDirect } from "./sqlite-direct.js";
import { GroupCommitDialect, registerGroupCommit } from "./sqlite-group-commit.js";
import { limitWithoutReprepare } from "./sqlite-limit.js";

/** Kysely handle typed with every table; a transaction is accepted wherever a Db is. */
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;

/** SQLite's `synchronous` settings an operator may choose (SQLITE_SYNCHRONOUS). */
type SqliteSynchronous = "FULL" | "NORMAL";

/** The database engines Eventgraph runs on. */
export type Engine = "sqlite" | "postgres";

/** An open database: the query builder, which engine it is, and how to check and close it. */
export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /** Runs `select 1`; rejects when the database cannot be reached. */
  ping(): Promise<void>;
  /** Whether the database link is up (always for SQLite); /readyz and the metrics read it. */
  health: DatabaseHealth;
  /**
   * A number that changes whenever another process (another server, the CLI) may have written
   * unseen. SQLite: `PRAGMA data_version`, which changes exactly when another connection has
   * committed since the last call (this process's own writes leave it alone). PostgreSQL: the
   * change feed's epoch, undefined while its connection does not listen.
   */
  externalWrites: () => number | undefined;
  /** PostgreSQL: every process's committed project changes, pushed (src/db/change-feed.ts). */
  changeFeed?: ChangeFeed;
  /** SQLite file opened with `checkpointInBackground`: the thread that checkpoints its WAL. */
  checkpointer?: Checkpointer;
  /** PostgreSQL pool connections by state, for the metrics; undefined for SQLite (one connection). */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  /** PostgreSQL: the most connections the pool opens; undefined for SQLite (one connection). */
  poolSize: number | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
  /**
   * SQLite's page cache per connection, in MiB (default 16). Bulk loads (the demo seeder) want 64:
   * inserting into indices keyed by random UUIDs thrashes a small cache beyond ~100k rows. A server
   * wants less: its reads are index lookups of a page of rows, the OS caches the file anyway, and
   * 64 MiB of page cache was a third of its peak memory on the ×100 benchmark.
   */
  sqlitePageCacheMiB?: number;
  /**
   * SQLite file: checkpoint the WAL from a worker thread instead of at commit time (checkpoints.ts).
   * For a long-running server; a short CLI command keeps SQLite's own checkpoints.
   */
  checkpointInBackground?: boolean;
  /**
   * PostgreSQL: the `statement_timeout` and `idle_in_transaction_session_timeout` of every pooled
   * connection, in milliseconds. A server sets them below its request deadline
   * (serverDatabaseOptions), so PostgreSQL cancels a statement that outlives its request instead of
   * letting it hold a connection and its locks, and ends a transaction its process stopped driving.
   * Unset (no limit) for migrations and the CLI, whose statements may rightly run long.
   */
  statementTimeoutMs?: number;
  /**
   * SQLite `synchronous` of the writing connection. FULL (the default) syncs the WAL at every
   * commit, so an acknowledged write survives a power loss or an OS crash; NORMAL syncs only at
   * checkpoints: faster, but the last commits before such a crash can be lost (never corrupted).
   */
  sqliteSynchronous?: SqliteSynchronous;
  /** Called with every SQL statement executed and its parameters (tests count and EXPLAIN them). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Called with the duration of every statement, in milliseconds, failed ones included (metrics). */
  onQueryDuration?: (milliseconds: number) => void;
  /** The server's switches (config.fastPaths); `group-commit` is read here. */
  fastPaths?: Pick<FastPaths, "group-commit">;
}

// The SQLite databases' direct runners (sqlite-direct.ts), by adapter as in reusableQuery.
const directRunners = new WeakMap<object, SqliteDirect>();

/**
 * What a server opens its database with, from its configuration. The statement timeout is a tenth
 * below the request deadline: a statement begun as its request started is cancelled by PostgreSQL
 * before the request is answered TIMEOUT, and no statement keeps a connection (and its locks) for
 * a request that has already been answered.
 */
export function serverDatabaseOptions(config: Config): DatabaseOptions {
  return {
    statementTimeoutMs: Math.max(1, Math.floor(config.limits.requestTimeoutMs * 0.9)),
    sqliteSynchronous: config.sqliteSynchronous,
  };
}

/** Connections in a PostgreSQL pool unless the caller says otherwise. */
const defaultPoolSize = 10;

/** Opens `sqlite:<path>` (file created with its folder) or `postgres://…` (pooled). */
export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const { onQuery, onQueryDuration } = options;
  const log =
    onQuery || onQueryDuration
      ? (event: QueryLogEvent) => {
          if (event.level === "query") onQuery?.(event.query.sql, event.query.parameters);
          onQueryDuration?.(event.queryDurationMillis);
        }
      : undefined;

  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    // WAL lets readers run beside the writer (and several processes share the file). This
    // connection never waits inside SQLite for another connection's lock: better-sqlite3 is
    // synchronous, so that wait (sleeps of up to 100 ms, for seconds) held the whole process while
    // another process wrote. Its statements fail at once with SQLITE_BUSY instead, and Kysely's are
    // tried again on the event loop (WaitingForLockDialect). Those that run straight on
    // better-sqlite3 cannot meet a lock: inside a transaction it holds the write lock already, and
    // a read from outside one runs there only while no transaction is open (sqlite-direct.ts).
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 0");
    sqlite.pragma("foreign_keys = ON");
    // In WAL mode only FULL syncs at each commit; group commit (sqlite-group-commit.ts) is what
    // keeps that sync affordable, one per group of transactions instead of one per transaction.
    sqlite.pragma(`synchronous = ${options.sqliteSynchronous === "NORMAL" ? "NORMAL" : "FULL"}`);
    // Negative: a size in KiB rather than in pages.
    sqlite.pragma(`cache_size = -${Math.round((options.sqlitePageCacheMiB ?? 16) * 1024)}`);
    // Fast path `group-commit` (its invariant and tests: sqlite-group-commit.ts). Off, each
    // transaction commits on its own; the dialect still waits for other processes' locks.
    const groupCommit = options.fastPaths?.["group-commit"] ?? true;
    const dialect = new GroupCommitDialect(
      { database: withStatementCache(sqlite) },
      sqlite,
      log,
      groupCommit,
    );
    const db = new Kysely<Tables>({
      dialect,
      // Group commit logs on the connection itself (it sees BEGIN and COMMIT); without it, Kysely does.
      ...(groupCommit ? {} : { log }),
      plugins: [limitWithoutReprepare(), yieldAfterStatement],
    });
    if (dialect.groupCommit) registerGroupCommit(db.getExecutor().adapter, dialect.groupCommit);
    directRunners.set(db.getExecutor().adapter, new SqliteDirect(sqlite, log));
    const dataVersion = sqlite.prepare("pragma data_version").pluck();
    const checkpointer =
      options.checkpointInBackground && path !== ":memory:"
        ? checkpointInBackground(sqlite, path)
        : undefined;
    return {
      db,
      engine: "sqlite",
      checkpointer,
      externalWrites: () => {
        try {
          return dataVersion.get() as number;
        } catch {
          // SQLITE_BUSY while another connection recovers the WAL: unknown, so every hit is checked.
          return undefined;
        }
      },
      health: new DatabaseHealth(),
      poolStats: () => undefined,
      poolSize: undefined,
      async ping() {
        sqlite.prepare("select 1").get();
      },
      async close() {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }

  if (/^postgres(ql)?:\/\//.test(url)) {
    const poolSize = options.poolSize ?? defaultPoolSize;
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: 5000,
      ...(options.statementTimeoutMs === undefined
        ? {}
        : {
            statement_timeout: options.statementTimeoutMs,
            idle_in_transaction_session_timeout: options.statementTimeoutMs,
          }),
    });
    const health = new DatabaseHealth();
    const probeAside = asideProbe(url, health);
    // An idle client losing its connection must not crash the process; the pool replaces it. One
    // lost connection (an idle timeout, a terminated backend) says nothing about the database: only
    // a failed new connection opens the circuit.
    pool.on("error", () => {});
    const db = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: withNamedStatements(pool, health) }),
      log,
    });
    // Connects only once a server subscribes: the CLI and migrations never open it.
    const changeFeed = new ChangeFeed(url, ownBackends(pool));
    return {
      db,
      engine: "postgres",
      externalWrites: () => changeFeed.epoch(),
      changeFeed,
      health,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      poolSize,
      // Goes around the circuit breaker: /readyz is how a load balancer learns of the recovery.
      async ping() {
        // Every connection in use: a connection of its own tells whether the database answers.
        if (pool.idleCount === 0 && pool.totalCount >= poolSize) return probeAside();
        try {
          const client = await pool.connect();
          const guard = guardCheckedOut(client);
          try {
            await client.query("select 1");
          } catch (error) {
            guard.fail(error as Error);
            throw error;
          } finally {
            guard.release();
          }
        } catch (error) {
          if (isConnectionError(error)) health.markDown(error);
          throw error;
        }
        health.markUp();
      },
      async close() {
        await changeFeed.close();
        await db.destroy();
      },
    };
  }

  throw new Error(`Unsupported DATABASE_URL (expected sqlite:<path> or postgres://…): ${redactUrl(url)}`);
}

const yieldAfterStatement: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => {
    await yieldIfLoopHeld();
    return args.result;
  },
};

/**
 * Kysely prepares every statement anew, and preparing was a tenth of the CPU time of an API page:
 * the API sends the same few statement texts again and again, so prepared statements are kept (LRU)
 * and reused. better-sqlite3 runs one statement at a time, so a cached one is free again as soon as
 * its call returns; only one still being iterated (a streamed query) is busy, and gets a fresh one.
 */
// What `rollback` runs when SQLite has already rolled the transaction back.
const alreadyRolledBack: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

function withStatementCache(sqlite: SQLite.Database, max = 1000): SqliteDatabase {
  const statements = new LRUCache<string, SQLite.Statement>({ max });
  // Every transaction here writes, so each takes the write lock when it begins (IMMEDIATE):
  // what it reads inside is then the latest data and stays so until it commits, which makes a
  // plain read a row lock on SQLite (attendeesRepository.lock), and a second process waits
  // for the lock (WaitingForLockDialect) instead of failing on a stale snapshot half-way.
  const begin = sqlite.prepare("begin immediate");
  return {
    prepare(sql) {
      // SQLite rolls a transaction back by itself after some errors (SQLITE_FULL when the disk is
      // full, SQLITE_IOERR, SQLITE_NOMEM). Kysely's own `rollback` would then fail with "no
      // transaction is active", and that error would replace the real one the caller must see.
      if (sql === "rollback" && !sqlite.inTransaction) return alreadyRolledBack;
      if (sql === "begin") return begin;
      let statement = statements.get(sql);
      if (!statement || statement.busy) {
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

/**
 * A statement built with the query builder once per database and then run with new parameter
 * values: building and compiling a Kysely query costs more than running a small indexed read, and
 * the hottest statements (the data-version check of every cache hit, the token lookup of every
 * authenticated request, the statements of a check-in) have a fixed shape. `build` receives
 * placeholder values; the parameters passed at run time replace them in order, so the shape must
 * not depend on them (it may depend on the engine: it is built once per database). On SQLite it
 * runs straight on better-sqlite3 (sqlite-direct.ts).
 */
export function reusableQuery<Row, Parameters extends readonly unknown[]>(
  build: (db: Db, ...placeholders: Parameters) => Compilable<Row>,
  placeholders: Parameters,
): (db: Db, ...parameters: Parameters) => Promise<Row[]> {
  // Keyed by the dialect's adapter, which a database shares with all its transactions (each
  // transaction is a new handle: keyed by handle, a statement inside one was compiled every time).
  // The compiled text is the same for all of them as long as no handle adds plugins of its own.
  const compiled = new WeakMap<object, { query: CompiledQuery<Row>; direct?: DirectStatement<Row> }>();
  return async (db, ...parameters) => {
    const adapter = db.getExecutor().adapter;
    let entry = compiled.get(adapter);
    if (!entry) {
      const query = build(db, ...placeholders).compile();
      if (query.parameters.length !== placeholders.length) {
        throw new Error(
          `reusableQuery: the statement has ${query.parameters.length} parameters, expected ${placeholders.length}`,
        );
      }
      entry = { query, direct: directRunners.get(adapter)?.statement<Row>(query.sql) };
      compiled.set(adapter, entry);
      nameStatement(query.sql);
    }
    const direct = entry.direct?.(db, parameters);
    if (direct) return direct;
    // Written out rather than `{ ...entry.query, parameters }`: the spread cost more on Node 20.
    const { query: node, queryId, sql } = entry.query;
    const query: CompiledQuery<Row> = { query: node, queryId, sql, parameters };
    return (await db.executeQuery<Row>(query)).rows;
  };
}

/** Hides the password of a connection URL before it is shown in a message or a log. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}
