import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "kysely";
import { type Db, openDatabase, reusableQuery } from "./database.js";

// The numbers 1 to 4 as a table, so the test needs no schema.
const numbers = (db: Db) =>
  db
    .selectFrom(
      sql<{ n: number }>`(select 1 as n union all select 2 union all select 3 union all select 4)`.as("v"),
    )
    .select(sql<number>`n`.as("n"));

const firstNumbers = reusableQuery((db, limit: number) => numbers(db).orderBy("n").limit(limit), [
  0,
] as const);

test("SQLite statements take their limit as an expression, so a new limit value is not a new plan", async () => {
  const database = openDatabase("sqlite::memory:");
  try {
    const { db } = database;
    assert.match(db.selectFrom("tracks").select("id").limit(5).compile().sql, /limit \? \+ 0$/);
    const nested = db
      .selectFrom("tracks")
      .select("id")
      .where("id", "in", db.selectFrom("rooms").select("id").limit(3))
      .limit(2)
      .compile();
    assert.equal(nested.sql.match(/limit \? \+ 0/g)?.length, 2, "subqueries too");
    assert.deepEqual(nested.parameters, [3, 2], "the parameters stay in their place");

    // One compiled statement, run with each limit in turn: every run honours its own.
    for (const limit of [1, 3, 2, 4, 0, 3]) {
      const rows = await firstNumbers(db, limit);
      assert.deepEqual(
        rows.map((r) => r.n),
        [1, 2, 3, 4].slice(0, limit),
      );
    }
  } finally {
    await database.close();
  }
});
