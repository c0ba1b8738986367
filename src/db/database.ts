import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type Transaction } from "kysely";
import { LRUCache } from "lru-cache";
import pg from "pg";
import type { Database as Tables } from "./schema.js";

/** Kysely handle typed with every table; a transaction is accepted wherever a Db is. */
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;

export type Engine = "sqlite" | "postgres";

/** An open database: the query builder, which engine it is, and how to check and close it. */
export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /** Runs `select 1`; rejects when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
  /** Called with every SQL statement executed and its parameters (tests count and EXPLAIN them). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
}

/** Opens `sqlite:<path>` (file created with its folder) or `postgres://…` (pooled). */
export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const log = options.onQuery
    ? (event: { level: string; query: { sql: string; parameters: readonly unknown[] } }) => {
        if (event.level === "query") options.onQuery?.(event.query.sql, event.query.parameters);
      }
    : undefined;

  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    // WAL lets readers run beside the writer (and several processes share the file);
    // the busy timeout makes a second writer wait instead of failing at once.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
    // 64 MB of page cache instead of 2 MB: random UUID keys touch pages all over the indices, and
    // with the default, bulk loads and large reads thrash once a table passes ~100k rows.
    sqlite.pragma("cache_size = -65536");
    const db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
      log,
    });
    return {
      db,
      engine: "sqlite",
      async ping() {
        sqlite.prepare("select 1").get();
      },
      close: () => db.destroy(),
    };
  }

  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), log });
    return {
      db,
      engine: "postgres",
      async ping() {
        const client = await pool.connect();
        try {
          await client.query("select 1");
        } finally {
          client.release();
        }
      },
      close: () => db.destroy(),
    };
  }

  throw new Error(`Unsupported DATABASE_URL (expected sqlite:<path> or postgres://…): ${redactUrl(url)}`);
}

/**
 * Kysely prepares every statement anew, and preparing was a tenth of the CPU time of an API page:
 * the API sends the same few statement texts again and again, so prepared statements are kept (LRU)
 * and reused. better-sqlite3 runs one statement at a time, so a cached one is free again as soon as
 * its call returns; only one still being iterated (a streamed query) is busy, and gets a fresh one.
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000): SqliteDatabase {
  const statements = new LRUCache<string, SQLite.Statement>({ max });
  return {
    prepare(sql) {
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

/** Hides the password of a connection URL before it is shown in a message or a log. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}
