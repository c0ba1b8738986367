import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { type DatabaseHandle, openDatabase, reusableQuery } from "./database.js";

// Two processes on one SQLite file (WEB_CONCURRENCY=2, or the CLI beside the server): a write that
// finds the other's write lock taken used to wait inside SQLite, holding this whole process.

/** Runs `check` with a database whose file another connection holds the write lock of. */
async function whileLockedElsewhere(
  check: (database: DatabaseHandle, other: SQLite.Database) => Promise<void>,
) {
  const path = join(temporaryFolder("eventgraph-lock-wait-"), "db.sqlite");
  const database = openDatabase(`sqlite:${path}`);
  const other = new SQLite(path);
  try {
    await sql`create table t (x integer)`.execute(database.db);
    other.exec("begin immediate");
    await check(database, other);
  } finally {
    other.close();
    await database.close();
  }
}

const insert = (database: DatabaseHandle, x: number) =>
  database.db.transaction().execute((trx) => sql`insert into t values (${x})`.execute(trx));

// A fixed statement of the kind the repositories run straight on better-sqlite3 (sqlite-direct.ts).
const insertReused = reusableQuery(
  (db, x: number) => (db as unknown as Kysely<{ t: { x: number } }>).insertInto("t").values({ x }),
  [0] as const,
);

const valuesIn = async (database: DatabaseHandle) =>
  (await sql<{ x: number }>`select x from t order by x`.execute(database.db)).rows.map((r) => r.x);

/** Runs `write` while `other` holds the write lock for 300 ms; how often a 5 ms timer ran meanwhile. */
async function ticksWhileWaiting(other: SQLite.Database, write: () => Promise<unknown>): Promise<number> {
  if (!other.inTransaction) other.exec("begin immediate");
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
  }, 5);
  try {
    const written = write();
    await sleep(300);
    const whileWaiting = ticks;
    other.exec("commit");
    await written;
    return whileWaiting;
  } finally {
    clearInterval(timer);
  }
}

test(
  "a transaction waiting for another connection's write lock leaves the event loop free",
  { timeout: 20_000 },
  () =>
    whileLockedElsewhere(async (database, other) => {
      other.exec("insert into t values (2)");
      const ticks = await ticksWhileWaiting(other, () => insert(database, 1));
      // 300 ms of 5 ms ticks (a loaded host lets fewer through); a wait inside SQLite would have let
      // none through (and the other connection could not have committed, so the write would have
      // failed after 5 s).
      assert.ok(ticks >= 5, `the loop ran ${ticks} times while the write waited`);
      assert.deepEqual(await valuesIn(database), [1, 2]);
    }),
);

test(
  "a write outside a transaction waits for the lock on the event loop too; reads do not wait",
  { timeout: 20_000 },
  () =>
    whileLockedElsewhere(async (database, other) => {
      // A read in WAL mode never needs the write lock.
      const read = await sql<{ n: number }>`select count(*) as n from t`.execute(database.db);
      assert.equal(read.rows[0]?.n, 0);
      const viaKysely = await ticksWhileWaiting(other, () =>
        sql`insert into t values (1)`.execute(database.db),
      );
      const reused = await ticksWhileWaiting(other, () => insertReused(database.db, 2));
      // Each waited 300 ms; a wait inside SQLite would have let no tick through.
      assert.ok(viaKysely >= 5, `the loop ran ${viaKysely} times while a Kysely write waited`);
      assert.ok(reused >= 5, `the loop ran ${reused} times while a reused statement's write waited`);
      assert.deepEqual(await valuesIn(database), [1, 2]);
    }),
);

test(
  "a transaction that never gets the write lock fails with SQLITE_BUSY, not sooner than the timeout",
  { timeout: 20_000 },
  () =>
    whileLockedElsewhere(async (database, other) => {
      const started = Date.now();
      await assert.rejects(insert(database, 1), (error: { code?: string }) => error.code === "SQLITE_BUSY");
      const waited = Date.now() - started;
      assert.ok(waited >= 4900 && waited < 7000, `gave up after ${waited} ms`);
      other.exec("rollback");
      // The connection is usable afterwards.
      await insert(database, 3);
    }),
);
