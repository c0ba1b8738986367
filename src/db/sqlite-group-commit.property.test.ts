import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import SQLite from "better-sqlite3";
import fc from "fast-check";
import { type Kysely, sql } from "kysely";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { type Db, openDatabase, reusableQuery } from "./database.js";
import { inTransaction } from "./transaction.js";

// Group commit (sqlite-group-commit.ts) runs concurrent callers' transactions inside one SQLite
// transaction. Whatever the interleaving, each caller must get the outcome of its own transaction
// alone: its rows kept if and only if it was told it committed, and only its own errors.

type Table = Kysely<{ t: { owner: number; step: number; tag: string; positive: number } }>;

/** How a caller's transaction ends. */
type Ending =
  | "commit"
  // Throws from its work after writing: a rollback.
  | "throw"
  // A statement breaks a constraint (UNIQUE, CHECK, FOREIGN KEY) and the error reaches the caller.
  | "unique"
  | "check"
  | "foreignKey"
  // A statement breaks a constraint, the work catches it and goes on: its other rows commit.
  | "caughtViolation"
  // Two statements at once, one of which fails: nothing of the transaction may stay.
  | "parallelFailure";

interface Plan {
  rows: number;
  ending: Ending;
  // Event-loop turns before the caller starts, and between its statements.
  startAfter: number;
  pauses: number[];
  // Its inserts run straight on better-sqlite3 (reusableQuery) or through Kysely.
  direct: boolean;
  // A bare Kysely transaction (which commits its group at once) rather than inTransaction.
  bare: boolean;
}

const plan: fc.Arbitrary<Plan> = fc.record({
  rows: fc.integer({ min: 1, max: 3 }),
  ending: fc.constantFrom<Ending>(
    "commit",
    "commit",
    "commit",
    "throw",
    "unique",
    "check",
    "foreignKey",
    "caughtViolation",
    "parallelFailure",
  ),
  startAfter: fc.integer({ min: 0, max: 3 }),
  pauses: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }),
  direct: fc.boolean(),
  bare: fc.boolean(),
});

const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

const insertDirect = reusableQuery(
  (db, owner: number, step: number, tag: string, positive: number) =>
    (db as unknown as Table).insertInto("t").values({ owner, step, tag, positive }),
  [0, 0, "", 0] as const,
);
const insertKysely = (db: Db, owner: number, step: number, tag: string, positive: number) =>
  (db as unknown as Table).insertInto("t").values({ owner, step, tag, positive }).execute();

class Planned extends Error {}

async function runCaller(db: Db, owner: number, p: Plan): Promise<void> {
  await turns(p.startAfter);
  const insert = (trx: Db, step: number, tag = `${owner}-${step}`, positive = 1) =>
    p.direct ? insertDirect(trx, owner, step, tag, positive) : insertKysely(trx, owner, step, tag, positive);
  const transaction = (work: (trx: Db) => Promise<void>) =>
    p.bare ? db.transaction().execute(work) : inTransaction(db, undefined, work);
  await transaction(async (trx) => {
    for (let step = 0; step < p.rows; step++) {
      await insert(trx, step);
      await turns(p.pauses[step] ?? 0);
    }
    switch (p.ending) {
      case "commit":
        return;
      case "throw":
        throw new Planned(`caller ${owner} changed its mind`);
      case "unique":
        // Its own first row's tag again.
        await insert(trx, 100, `${owner}-0`);
        return;
      case "check":
        await insert(trx, 100, `${owner}-check`, -1);
        return;
      case "foreignKey":
        await sql`insert into child (parent) values (${-owner - 1})`.execute(trx);
        return;
      case "caughtViolation":
        await insert(trx, 100, `${owner}-0`).catch(() => {});
        await turns(p.pauses[3] ?? 0);
        await insert(trx, 101);
        return;
      case "parallelFailure":
        await Promise.all([insert(trx, 100, `${owner}-0`), insert(trx, 101), insert(trx, 102)]);
        return;
    }
  });
}

// The steps of a caller's rows that must be committed, or undefined when it must fail.
function expectedSteps(p: Plan): number[] | undefined {
  const written = Array.from({ length: p.rows }, (_, step) => step);
  if (p.ending === "commit") return written;
  if (p.ending === "caughtViolation") return [...written, 101];
  return undefined;
}

// What a failing caller must hear: its own error, nothing else's.
function ownError(owner: number, p: Plan, error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  switch (p.ending) {
    case "throw":
      return error instanceof Planned && message === `caller ${owner} changed its mind`;
    case "unique":
    case "parallelFailure":
      return /UNIQUE constraint failed: t\.tag/.test(message);
    case "check":
      return /CHECK constraint failed/.test(message);
    case "foreignKey":
      return /FOREIGN KEY constraint failed/.test(message);
    default:
      return false;
  }
}

test("group commit: any interleaving of commits, rollbacks and failures gives each caller its own outcome", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(plan, { minLength: 1, maxLength: 10 }), async (plans) => {
      const path = join(temporaryFolder("eventgraph-group-property-"), "db.sqlite");
      const database = openDatabase(`sqlite:${path}`, { sqliteSynchronous: "NORMAL" });
      const other = new SQLite(path, { readonly: true });
      try {
        await sql`create table t (owner integer not null, step integer not null, tag text not null unique,
          positive integer not null check (positive > 0))`.execute(database.db);
        await sql`create table parent (id integer primary key)`.execute(database.db);
        await sql`create table child (parent integer not null references parent (id))`.execute(database.db);
        const outcomes = await Promise.allSettled(plans.map((p, owner) => runCaller(database.db, owner, p)));
        const rows = other.prepare("select owner, step from t order by owner, step").all() as {
          owner: number;
          step: number;
        }[];
        plans.forEach((p, owner) => {
          const outcome = outcomes[owner] as PromiseSettledResult<void>;
          const kept = rows.filter((r) => r.owner === owner).map((r) => r.step);
          const expected = expectedSteps(p);
          if (expected) {
            assert.equal(
              outcome.status,
              "fulfilled",
              `caller ${owner} (${p.ending}) failed: ${String((outcome as PromiseRejectedResult).reason)}`,
            );
            assert.deepEqual(kept, expected, `caller ${owner} (${p.ending}) committed`);
          } else {
            assert.equal(outcome.status, "rejected", `caller ${owner} (${p.ending}) was told it committed`);
            const reason = (outcome as PromiseRejectedResult).reason;
            assert.ok(ownError(owner, p, reason), `caller ${owner} (${p.ending}) heard: ${String(reason)}`);
            assert.deepEqual(kept, [], `caller ${owner} (${p.ending}) failed, yet rows of it were kept`);
          }
        });
        // Nothing else on the connection either: it takes a plain write afterwards.
        await sql`insert into parent (id) values (1)`.execute(database.db);
      } finally {
        other.close();
        await database.close();
      }
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
  );
});
