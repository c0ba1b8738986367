import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { type DatabaseHandle, openDatabase, reusableQuery } from "./database.js";
import { inTransaction } from "./transaction.js";

// SQLite with the fast paths `group-commit` and `sqlite-reader` off (EVENTGRAPH_FAST_PATHS): each
// transaction commits on its own, and reads from outside one share the writing connection.

async function withPlainDatabase(
  check: (database: DatabaseHandle, statements: string[], other: SQLite.Database) => Promise<void>,
) {
  const path = join(temporaryFolder("eventgraph-plain-path-"), "db.sqlite");
  const statements: string[] = [];
  const database = openDatabase(`sqlite:${path}`, {
    onQuery: (text) => statements.push(text),
    fastPaths: { "group-commit": false, "sqlite-reader": false },
  });
  await sql`create table t (x integer primary key)`.execute(database.db);
  const other = new SQLite(path, { readonly: true });
  try {
    await check(database, statements, other);
  } finally {
    other.close();
    await database.close();
  }
}

const insert = (db: DatabaseHandle["db"], x: number) => sql`insert into t values (${x})`.execute(db);
const committed = (other: SQLite.Database) =>
  (other.prepare("select x from t order by x").all() as { x: number }[]).map((r) => r.x);
const rowOf = reusableQuery(
  (db, x: number) =>
    (db as unknown as Kysely<{ t: { x: number } }>).selectFrom("t").select("x").where("x", "=", x),
  [0] as const,
);

test("group commit off: queued transactions commit one by one, a failed one alone rolls back", async () => {
  await withPlainDatabase(async (database, statements, other) => {
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map((x) =>
        inTransaction(database.db, undefined, async (trx) => {
          await insert(trx, x);
          if (x === 2) throw new Error("the second fails");
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    assert.deepEqual(committed(other), [1, 3, 4]);
    assert.equal(statements.filter((s) => s === "commit").length, 3, statements.join("\n"));
    assert.equal(statements.filter((s) => s.startsWith("savepoint")).length, 0);
  });
});

test("reader off: a read from outside a transaction waits for it and never sees its writes uncommitted", async () => {
  await withPlainDatabase(async (database) => {
    await insert(database.db, 1);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = inTransaction(database.db, undefined, async (trx) => {
      await insert(trx, 2);
      await held;
    });
    // Let the transaction take the connection first.
    await new Promise((resolve) => setTimeout(resolve, 10));
    let answered = false;
    const read = rowOf(database.db, 2).then((rows) => {
      answered = true;
      return rows;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(answered, false, "the read waits while the transaction holds the connection");
    release();
    await transaction;
    assert.deepEqual(await read, [{ x: 2 }], "read after the COMMIT, so it sees the row");
  });
});
