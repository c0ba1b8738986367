import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { DiskFullError } from "./availability.js";
import { type DatabaseHandle, openDatabase, reusableQuery } from "./database.js";
import { migrateToLatest } from "./migrate.js";
import { bindDeadline, type Deadline, inTransaction } from "./transaction.js";

// Transactions that queue for SQLite's one writing connection share a COMMIT (sqlite-group-commit.ts).

interface Opened {
  database: DatabaseHandle;
  /** Every statement the database ran, in order. */
  statements: string[];
  /** Another connection to the file: it sees only what was committed. */
  other: SQLite.Database;
}

async function withDatabase(check: (opened: Opened) => Promise<void>, groupCommit = true) {
  const path = join(temporaryFolder("eventgraph-group-commit-"), "db.sqlite");
  const statements: string[] = [];
  const database = openDatabase(`sqlite:${path}`, {
    onQuery: (text) => statements.push(text),
    fastPaths: { "group-commit": groupCommit },
  });
  await sql`create table t (x integer primary key)`.execute(database.db);
  const other = new SQLite(path, { readonly: true });
  try {
    await check({ database, statements, other });
  } finally {
    other.close();
    await database.close();
  }
}

const insert = (db: DatabaseHandle["db"], x: number) => sql`insert into t values (${x})`.execute(db);
const committed = (other: SQLite.Database) =>
  (other.prepare("select x from t order by x").all() as { x: number }[]).map((r) => r.x);
const count = (statements: string[], text: string) => statements.filter((s) => s === text).length;

test("transactions queued for the connection share one COMMIT, and each returns only once it is committed", async () => {
  await withDatabase(async ({ database, statements, other }) => {
    const visibleOnReturn: boolean[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, x) =>
        inTransaction(database.db, undefined, (trx) => insert(trx, x)).then(() => {
          visibleOnReturn[x] = committed(other).includes(x);
        }),
      ),
    );
    assert.deepEqual(committed(other), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(visibleOnReturn, Array(10).fill(true));
    // The first begins, the nine that waited meanwhile join it, the last commits for all.
    assert.equal(count(statements, "begin"), 1, statements.join("\n"));
    assert.equal(count(statements, "commit"), 1);
    assert.equal(count(statements, "savepoint eventgraph_group_member"), 9);
  });
});

test("a transaction of a group that fails is rolled back alone; the others commit", async () => {
  await withDatabase(async ({ database, statements, other }) => {
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((x) =>
        inTransaction(database.db, undefined, async (trx) => {
          await insert(trx, x);
          if (x === 2) throw new Error("the second fails");
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    assert.equal((outcomes[1] as PromiseRejectedResult).reason.message, "the second fails");
    assert.deepEqual(committed(other), [1, 3]);
    assert.equal(count(statements, "rollback to eventgraph_group_member"), 1, statements.join("\n"));
    assert.equal(count(statements, "commit"), 1);
  });
});

test("a failed COMMIT fails every transaction it carried, and the connection goes on", async () => {
  await withDatabase(async ({ database, other }) => {
    // A deferred foreign key is checked at COMMIT: the one way to make a COMMIT fail on demand.
    await sql`create table parent (id integer primary key)`.execute(database.db);
    await sql`create table child (parent integer references parent (id) deferrable initially deferred)`.execute(
      database.db,
    );
    const outcomes = await Promise.allSettled([
      inTransaction(database.db, undefined, (trx) => insert(trx, 1)),
      inTransaction(database.db, undefined, (trx) => sql`insert into child values (42)`.execute(trx)),
    ]);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.match((outcome as PromiseRejectedResult).reason.message, /FOREIGN KEY/);
    }
    assert.deepEqual(committed(other), []);
    await inTransaction(database.db, undefined, (trx) => insert(trx, 2));
    assert.deepEqual(committed(other), [2]);
  });
});

test("a statement outside a transaction commits the group it finds open before it runs", async () => {
  await withDatabase(async ({ database, statements, other }) => {
    let seenByOther: number[] | undefined;
    await Promise.all([
      inTransaction(database.db, undefined, (trx) => insert(trx, 1)),
      // Queued behind the transaction, so its COMMIT was put off; the write must not join it.
      insert(database.db, 2).then(() => {
        seenByOther = committed(other);
      }),
    ]);
    assert.deepEqual(seenByOther, [1, 2]);
    const order = statements.filter((s) => s === "commit" || s.startsWith("insert"));
    assert.deepEqual(order, ["insert into t values (?)", "commit", "insert into t values (?)"]);
  });
});

const rowOf = reusableQuery(
  (db, x: number) =>
    (db as unknown as Kysely<{ t: { x: number } }>).selectFrom("t").select("x").where("x", "=", x),
  [0] as const,
);

// With group commit off too (its plain path): the read never runs beside the transaction.
for (const groupCommit of [true, false]) {
  test(`a read from outside a transaction waits for it, and runs after its COMMIT (group commit ${groupCommit ? "on" : "off"})`, async () => {
    await withDatabase(async ({ database, statements }) => {
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
      const order = statements.filter((s) => s === "commit" || s.startsWith("select"));
      assert.equal(order.at(-2), "commit");
      assert.match(order.at(-1) ?? "", /^select/);
    }, groupCommit);
  });
}

test("a request waiting for its group's COMMIT is marked committing: its deadline can no longer stop it", async () => {
  await withDatabase(async ({ database, other }) => {
    const actor = {};
    const deadline: Deadline = { passed: false, committing: false };
    bindDeadline(actor, deadline);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let whileHeld: { committing: boolean; committed: number[] } | undefined;
    const first = inTransaction(database.db, actor, (trx) => insert(trx, 1));
    const second = inTransaction(database.db, undefined, async (trx) => {
      await insert(trx, 2);
      // The first ended before this one began, and its COMMIT waits for this one's end.
      whileHeld = { committing: deadline.committing, committed: committed(other) };
      await held;
    });
    while (!whileHeld) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(whileHeld, { committing: true, committed: [] });
    release();
    await Promise.all([first, second]);
    assert.equal(deadline.committing, false);
    assert.deepEqual(committed(other), [1, 2]);
  });
});

test("when SQLite rolls a group back by itself (a full disk), every transaction of it fails with that error", async () => {
  await withDatabase(async ({ database, other }) => {
    await sql`create table filler (pad text)`.execute(database.db);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(database.db)).rows[0]
      ?.page_count;
    // No room for another page: SQLITE_FULL, which makes SQLite roll the whole transaction back.
    await sql.raw(`pragma max_page_count = ${pages}`).execute(database.db);
    const outcomes = await Promise.allSettled([
      inTransaction(database.db, undefined, (trx) => insert(trx, 1)),
      inTransaction(database.db, undefined, (trx) =>
        sql`insert into filler values (${"x".repeat(100_000)})`.execute(trx),
      ),
    ]);
    // What the API answers as 503 DISK_FULL, for the transaction that found the disk full and for
    // the one whose group it took with it.
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok((outcome as PromiseRejectedResult).reason instanceof DiskFullError);
    }
    assert.deepEqual(committed(other), []);
    await sql.raw(`pragma max_page_count = ${(pages ?? 0) + 1000}`).execute(database.db);
    await inTransaction(database.db, undefined, (trx) => insert(trx, 2));
    assert.deepEqual(committed(other), [2]);
  });
});

test("a statement of a transaction whose work failed or ended is refused, never run in another's", async () => {
  await withDatabase(async ({ database, other }) => {
    await sql`create table u (x integer primary key)`.execute(database.db);
    let late: Promise<unknown> | undefined;
    const outcomes = await Promise.allSettled([
      inTransaction(database.db, undefined, (trx) => insert(trx, 1)),
      inTransaction(database.db, undefined, async (trx) => {
        // Sent at once: the first fails (1 is taken by then), the other two are still queued.
        await Promise.all([insert(trx, 1), insert(trx, 2), insert(trx, 3)]);
      }),
      inTransaction(database.db, undefined, async (trx) => {
        await insert(trx, 4);
        // Sent after the work returned, straight to better-sqlite3 and through Kysely.
        late = Promise.allSettled([
          new Promise((resolve) => setImmediate(resolve)).then(() => rowOf(trx, 4)),
          new Promise((resolve) => setImmediate(resolve)).then(() => insert(trx, 5)),
        ]);
      }),
      inTransaction(database.db, undefined, (trx) => insert(trx, 6)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    const lateOutcomes = (await late) as PromiseSettledResult<unknown>[];
    // Refused by the connection handle, or by Kysely itself once it has marked the transaction committed.
    for (const outcome of lateOutcomes) {
      assert.equal(outcome.status, "rejected");
      assert.match(String((outcome as PromiseRejectedResult).reason), /already ended|already committed/);
    }
    assert.deepEqual(committed(other), [1, 4, 6]);
  });
});

test("the schema defers no constraint: a group's COMMIT fails only for what no member caused", async () => {
  const database = openDatabase(`sqlite:${join(temporaryFolder("eventgraph-group-schema-"), "db.sqlite")}`);
  try {
    await migrateToLatest(database.db);
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where sql like '%deferrable%' or sql like '%deferred%'`.execute(
      database.db,
    );
    assert.deepEqual(rows, []);
  } finally {
    await database.close();
  }
});

// Its plain path (EVENTGRAPH_FAST_PATHS=-group-commit).
test("group commit off: queued transactions commit one by one, a failed one alone rolls back", async () => {
  await withDatabase(async ({ database, statements, other }) => {
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
  }, false);
});
