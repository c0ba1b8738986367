import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { sqliteEngine, testEngines } from "../../test/helpers/engines.js";
import { createAttendee, createProject, createTicketType, userActor } from "../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { ConfigError, loadConfig } from "../config.js";
import { openDatabase, reusableQuery } from "./database.js";

const nameOf = reusableQuery(
  (db, id: string) => db.selectFrom("projects").select(["id", "name"]).where("id", "=", id),
  [""] as const,
);

// Writes whose result nobody reads, as the audit entry and the version bump of every write are.
const rename = reusableQuery(
  (db, name: string, id: string) => db.updateTable("projects").set({ name }).where("id", "=", id),
  ["", ""] as const,
);

const setDescription = reusableQuery(
  (db, description: string | null, id: string) =>
    db.updateTable("projects").set({ description }).where("id", "=", id),
  ["", ""] as const,
);

const takeId = reusableQuery(
  (db, newId: string, id: string) => db.updateTable("projects").set({ id: newId }).where("id", "=", id),
  ["", ""] as const,
);

for (const engine of testEngines()) {
  describe(`reusable compiled statements (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    test("refuses a statement whose parameters do not match its placeholders", async () => {
      const twoParameters = reusableQuery(
        (db, id: string) =>
          db.selectFrom("projects").select("id").where("id", "=", id).where("name", "=", "constant"),
        [""] as const,
      );
      await assert.rejects(twoParameters(ctx.database.db, "AAAA"), /2 parameters, expected 1/);
    });

    test("runs the same compiled statement with each call's parameters", async () => {
      const one = await createProject(ctx.services);
      const two = await createProject(ctx.services);
      ctx.queries.length = 0;
      assert.deepEqual(await nameOf(ctx.database.db, one.project.id), [
        { id: one.project.id, name: one.project.name },
      ]);
      assert.deepEqual(await nameOf(ctx.database.db, two.project.id), [
        { id: two.project.id, name: two.project.name },
      ]);
      assert.deepEqual(await nameOf(ctx.database.db, "ZZZZ"), []);
      assert.deepEqual(
        ctx.queries.map((q) => q.parameters),
        [[one.project.id], [two.project.id], ["ZZZZ"]],
      );
      assert.equal(new Set(ctx.queries.map((q) => q.sql)).size, 1);
    });

    test("a write whose result nobody reads fails the transaction it fails in: nothing of it commits", async () => {
      const { project } = await createProject(ctx.services);
      const other = await createProject(ctx.services);
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await trx.updateTable("projects").set({ name: "Half-way" }).where("id", "=", project.id).execute();
          // Taking another project's id breaks the primary key, but only when the statement runs.
          await takeId(trx, other.project.id, project.id);
        }),
        /UNIQUE constraint|duplicate key|foreign key/i,
      );
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, project.name);
    });

    test("a write whose result nobody reads runs before anything that follows it and commits with it", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await rename(trx, "Renamed; 'quoted' $1", project.id);
        assert.equal((await nameOf(trx, project.id))[0]?.name, "Renamed; 'quoted' $1");
        await rename(trx, "Renamed at commit", project.id);
      });
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, "Renamed at commit");
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await rename(trx, "Rolled back", project.id);
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, "Renamed at commit");
    });

    test("a write whose result nobody reads takes a null parameter as NULL", async () => {
      const { project } = await createProject(ctx.services);
      const descriptionOf = () =>
        ctx.database.db.selectFrom("projects").select("description").where("id", "=", project.id).execute();
      await ctx.database.db.transaction().execute((trx) => setDescription(trx, "it's 'NULL'", project.id));
      assert.deepEqual(await descriptionOf(), [{ description: "it's 'NULL'" }]);
      await ctx.database.db.transaction().execute(async (trx) => {
        await setDescription(trx, null, project.id);
        assert.deepEqual(await nameOf(trx, project.id), [{ id: project.id, name: project.name }]);
      });
      assert.deepEqual(await descriptionOf(), [{ description: null }]);
    });

    test("a transaction of nothing but a write whose result nobody reads commits it", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await rename(trx, "Only statement", project.id);
      });
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, "Only statement");
    });

    test("a read from outside an open transaction never sees its uncommitted writes", async () => {
      const { project } = await createProject(ctx.services);
      let outside: Promise<{ name: string }[]> | undefined;
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await trx
            .updateTable("projects")
            .set({ name: "Uncommitted" })
            .where("id", "=", project.id)
            .execute();
          // SQLite has one connection: this read must wait for the transaction, not run inside it.
          outside = nameOf(ctx.database.db, project.id);
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error("rolled back");
        }),
        /rolled back/,
      );
      assert.equal((await outside)?.[0]?.name, project.name);
    });

    test("returns to the event loop once statements have held it 2 ms", async () => {
      const { project } = await createProject(ctx.services);
      let ran = false;
      setImmediate(() => {
        ran = true;
      });
      await nameOf(ctx.database.db, project.id);
      const until = performance.now() + 3;
      while (performance.now() < until) {
        // holding the event loop, as a long request would
      }
      await nameOf(ctx.database.db, project.id);
      assert.equal(ran, true);
    });

    test("inside a transaction, reads through the transaction", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable("projects")
          .set({ name: "Renamed in trx" })
          .where("id", "=", project.id)
          .execute();
        assert.equal((await nameOf(trx, project.id))[0]?.name, "Renamed in trx");
      });
    });
  });
}

// The SQL texts the pg driver sends, of pooled connections and any other.
function sentTexts(): { texts: string[]; stop(): void } {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    texts.push(typeof first === "string" ? first : String((first as { text?: unknown }).text));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  const stop = () => {
    pg.Client.prototype.query = query;
  };
  return { texts, stop };
}

for (const engine of testEngines().filter((e) => e.name === "postgres")) {
  describe("values on PostgreSQL", () => {
    test("travel as bind parameters, never written into the SQL text: check-ins, their audit entries and version bumps", async () => {
      const ctx = await createTestContext(engine);
      const sent = sentTexts();
      try {
        const { project, ownerId } = await createProject(ctx.services);
        const actor = userActor(ownerId);
        const ticket = await createTicketType(ctx.services, actor, project.id);
        const marker = "Zoë O'Brien $1; --";
        const attendee = await createAttendee(ctx.services, actor, project.id, ticket.id, {
          name: marker,
        });
        // Every statement of a write, the prepared ones too, and inside and outside transactions.
        for (let round = 0; round < 3; round++) {
          await ctx.services.checkins.checkIn(actor, { attendeeId: attendee.id });
          await ctx.services.checkins.undoCheckIn(actor, { attendeeId: attendee.id });
          await rename(ctx.database.db, `${marker} ${round}`, project.id);
          await ctx.database.db.transaction().execute((trx) => rename(trx, `${marker} in trx`, project.id));
        }
        assert.ok(sent.texts.length > 20, `only ${sent.texts.length} statements seen`);
        const values = [marker, "Brien", project.id, attendee.id, ticket.id];
        for (const text of sent.texts) {
          for (const value of values) assert.ok(!text.includes(value), `${value} written into: ${text}`);
        }
        assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, `${marker} in trx`);
      } finally {
        sent.stop();
        await ctx.close();
      }
    });
  });
}

describe("statements run straight on better-sqlite3", () => {
  test("report their text and parameters, and their duration whether they fail or not", async () => {
    const queries: unknown[][] = [];
    const durations: number[] = [];
    const database = openDatabase("sqlite::memory:", {
      onQuery: (sql, parameters) => queries.push([sql, parameters]),
      onQueryDuration: (milliseconds) => durations.push(milliseconds),
    });
    try {
      // No migration ran: the table is missing and the statement fails (and is prepared again later).
      await assert.rejects(nameOf(database.db, "AbC1"), /no such table/);
      assert.deepEqual(queries, []);
      assert.equal(durations.length, 1);
      await sql`create table projects (id text primary key, name text)`.execute(database.db);
      await sql`insert into projects values ('AbC1', 'One')`.execute(database.db);
      queries.length = 0;
      assert.deepEqual(await nameOf(database.db, "AbC1"), [{ id: "AbC1", name: "One" }]);
      assert.deepEqual(queries, [['select "id", "name" from "projects" where "id" = ?', ["AbC1"]]]);
      assert.equal(durations.length, 4);
    } finally {
      await database.close();
    }
  });
});

describe("SQLite durability (SQLITE_SYNCHRONOUS)", () => {
  // PRAGMA synchronous reads 2 for FULL, 1 for NORMAL.
  const synchronousOf = async (env: Record<string, string>) => {
    const ctx = await createTestContext(sqliteEngine, env);
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(ctx.database.db);
      return rows[0]?.synchronous;
    } finally {
      await ctx.close();
    }
  };

  test("a server syncs every commit (FULL) unless the operator chose NORMAL", async () => {
    assert.equal(await synchronousOf({}), 2);
    assert.equal(await synchronousOf({ SQLITE_SYNCHRONOUS: "FULL" }), 2);
    assert.equal(await synchronousOf({ SQLITE_SYNCHRONOUS: "NORMAL" }), 1);
    const bare = openDatabase(sqliteEngine.newDatabaseUrl());
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(bare.db);
      assert.deepEqual(rows, [{ synchronous: 2 }]);
    } finally {
      await bare.close();
    }
  });

  test("any other value is refused at start-up", () => {
    for (const value of ["OFF", "normal", "EXTRA", "1"]) {
      assert.throws(() => loadConfig({ SQLITE_SYNCHRONOUS: value }), ConfigError, value);
    }
  });
});
