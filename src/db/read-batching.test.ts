import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { testEngines } from "../../test/helpers/engines.js";
import { openDatabase, reusableQuery } from "./database.js";

// `now()` is the start of the transaction: reads sent together (one implicit transaction) share it,
// reads sent one by one do not.
const echo = reusableQuery(
  (db, text: string) =>
    db.selectNoFrom([sql<string>`now()::text`.as("at"), sql<string>`${text}::text`.as("text")]),
  [""] as const,
);
const list = reusableQuery(
  (db, items: readonly string[]) => db.selectNoFrom(sql<string[]>`${items}::text[]`.as("items")),
  [[] as readonly string[]] as const,
);
const asNumber = reusableQuery((db, text: string) => db.selectNoFrom(sql<number>`${text}::int`.as("n")), [
  "",
] as const);

for (const engine of testEngines().filter((e) => e.name === "postgres")) {
  describe("reads outside a transaction on PostgreSQL", () => {
    test("issued in one turn, go in one round trip, each with its own answer", {
      timeout: 10_000,
    }, async () => {
      // One connection: the statements prepared by the first round are there for the second.
      const { db, close } = openDatabase(engine.newDatabaseUrl(), { poolSize: 1 });
      try {
        const odd = ['with "quotes"', "a\\backslash", "it's", "{braces}, commas"];
        const round = () => Promise.all([echo(db, "a"), echo(db, "it's"), list(db, odd), echo(db, "c")]);
        await round();
        const [a, quoted, items, c] = await round();
        assert.equal(a[0]?.text, "a");
        assert.equal(quoted[0]?.text, "it's");
        assert.deepEqual(items[0]?.items, odd);
        assert.equal(c[0]?.text, "c");
        assert.equal(new Set([a[0]?.at, quoted[0]?.at, c[0]?.at]).size, 1, "one transaction");
        // Read one after the other, they are not.
        const first = await echo(db, "x");
        await new Promise((resolve) => setTimeout(resolve, 2));
        const second = await echo(db, "y");
        assert.notEqual(first[0]?.at, second[0]?.at);
      } finally {
        await close();
      }
    });

    test("a read not yet prepared on the connection goes alone beside a batch", {
      timeout: 10_000,
    }, async () => {
      const { db, close } = openDatabase(engine.newDatabaseUrl(), { poolSize: 2 });
      try {
        await Promise.all([echo(db, "warm"), echo(db, "warm")]);
        const [a, b, n] = await Promise.all([echo(db, "a"), echo(db, "b"), asNumber(db, "7")]);
        assert.deepEqual([a[0]?.text, b[0]?.text, n[0]?.n], ["a", "b", 7]);
      } finally {
        await close();
      }
    });

    test("a read that fails in a batch fails alone", { timeout: 10_000 }, async () => {
      const { db, close } = openDatabase(engine.newDatabaseUrl(), { poolSize: 1 });
      try {
        await Promise.all([echo(db, "warm"), asNumber(db, "5")]);
        const [a, bad, c] = await Promise.allSettled([echo(db, "a"), asNumber(db, "five"), echo(db, "c")]);
        assert.deepEqual(a.status === "fulfilled" && a.value[0]?.text, "a");
        assert.equal(bad.status, "rejected");
        assert.match(
          String(bad.status === "rejected" && bad.reason),
          /invalid input syntax for type integer/,
        );
        assert.deepEqual(c.status === "fulfilled" && c.value[0]?.text, "c");
      } finally {
        await close();
      }
    });
  });
}
