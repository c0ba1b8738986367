import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { testEngines } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { openDatabase, reusableQuery } from "./database.js";

const nameOf = reusableQuery(
  (db, id: string) => db.selectFrom("projects").select(["id", "name"]).where("id", "=", id),
  [""] as const,
);

// Sent with the COMMIT on PostgreSQL: renames a project (a real statement whose result nobody reads).
const renameWithCommit = reusableQuery(
  (db, name: string, id: string) => db.updateTable("projects").set({ name }).where("id", "=", id),
  ["", ""] as const,
  { sentWithCommit: true },
);

const setDescriptionWithCommit = reusableQuery(
  (db, description: string | null, id: string) =>
    db.updateTable("projects").set({ description }).where("id", "=", id),
  ["", ""] as const,
  { sentWithCommit: true },
);

const takeIdWithCommit = reusableQuery(
  (db, newId: string, id: string) => db.updateTable("projects").set({ id: newId }).where("id", "=", id),
  ["", ""] as const,
  { sentWithCommit: true },
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

    test("a statement sent with the commit fails the transaction it fails in: nothing of it commits", async () => {
      const { project } = await createProject(ctx.services);
      const other = await createProject(ctx.services);
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await trx.updateTable("projects").set({ name: "Half-way" }).where("id", "=", project.id).execute();
          // Taking another project's id breaks the primary key, but only when the statement runs.
          await takeIdWithCommit(trx, other.project.id, project.id);
        }),
        /UNIQUE constraint|duplicate key|foreign key/i,
      );
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, project.name);
    });

    test("a statement sent with the commit runs before anything that follows it and commits with it", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await renameWithCommit(trx, "Renamed; 'quoted' $1", project.id);
        assert.equal((await nameOf(trx, project.id))[0]?.name, "Renamed; 'quoted' $1");
        await renameWithCommit(trx, "Renamed at commit", project.id);
      });
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, "Renamed at commit");
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await renameWithCommit(trx, "Rolled back", project.id);
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.equal((await nameOf(ctx.database.db, project.id))[0]?.name, "Renamed at commit");
    });

    test("a statement sent with the commit writes a null parameter as NULL", async () => {
      const { project } = await createProject(ctx.services);
      const descriptionOf = () =>
        ctx.database.db.selectFrom("projects").select("description").where("id", "=", project.id).execute();
      await ctx.database.db
        .transaction()
        .execute((trx) => setDescriptionWithCommit(trx, "it's 'NULL'", project.id));
      assert.deepEqual(await descriptionOf(), [{ description: "it's 'NULL'" }]);
      await ctx.database.db.transaction().execute(async (trx) => {
        await setDescriptionWithCommit(trx, null, project.id);
        assert.deepEqual(await nameOf(trx, project.id), [{ id: project.id, name: project.name }]);
      });
      assert.deepEqual(await descriptionOf(), [{ description: null }]);
    });

    test("a transaction of nothing but a statement sent with the commit commits it", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await renameWithCommit(trx, "Only statement", project.id);
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

// When PostgreSQL received the round trip a statement came in: equal for the statements of one batch.
const receivedAt = (db: Parameters<typeof nameOf>[0], id: string, readAhead: boolean) =>
  readAhead
    ? receivedAtAhead(db, id).then((rows) => rows[0]?.ahead)
    : receivedAtNow(db, id).then((rows) => rows[0]?.at);
const receivedAtNow = reusableQuery(
  (db, id: string) =>
    db.selectFrom("projects").select(sql<string>`statement_timestamp()::text`.as("at")).where("id", "=", id),
  [""] as const,
);
// Fails for a text that is no number, once PostgreSQL runs it.
const asNumber = reusableQuery(
  (db, text: string) => db.selectFrom("projects").select("id").where(sql<boolean>`${text}::integer > 0`),
  [""] as const,
);
// The same but for its alias: a statement is a read-ahead by its text.
const receivedAtAhead = reusableQuery(
  (db, id: string) =>
    db
      .selectFrom("projects")
      .select(sql<string>`statement_timestamp()::text`.as("ahead"))
      .where("id", "=", id),
  [""] as const,
  { readAhead: true },
);

for (const engine of testEngines().filter((e) => e.name === "postgres")) {
  describe("reads ahead on PostgreSQL", () => {
    let ctx: TestContext;
    let database: ReturnType<typeof openDatabase>;
    let projectId: string;
    before(async () => {
      ctx = await createTestContext(engine);
      // One connection, where both statements get prepared by the first transaction.
      database = openDatabase(engine.newDatabaseUrl(), { poolSize: 1 });
      projectId = (await createProject(ctx.services)).project.id;
      await database.db.transaction().execute(async (trx) => {
        await receivedAt(trx, projectId, true);
        await receivedAt(trx, projectId, false);
        await asNumber(trx, "1");
      });
    });
    after(async () => {
      await database.close();
      await ctx.close();
    });

    test("a read issued first in a transaction travels with its first statement", async () => {
      await database.db.transaction().execute(async (trx) => {
        const ahead = receivedAt(trx, projectId, true);
        const first = await receivedAt(trx, projectId, false);
        assert.ok(first);
        assert.equal(await ahead, first);
        // Issued later, the same read is a statement of its own.
        const later = receivedAt(trx, projectId, true);
        assert.notEqual(await later, first);
      });
    });

    test("a read ahead that nothing follows is sent on its own", { timeout: 5000 }, async () => {
      const at = await database.db.transaction().execute((trx) => receivedAt(trx, projectId, true));
      assert.ok(at);
    });

    test("a read ahead fails with its round trip, and with a rollback before it left", {
      timeout: 5000,
    }, async () => {
      let ahead: Promise<string | undefined> | undefined;
      // Handled at once, as every caller of a read ahead must (the write may never need it).
      const readAhead = (trx: Parameters<typeof nameOf>[0]) => {
        ahead = receivedAt(trx, projectId, true);
        ahead.catch(() => {});
      };
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          readAhead(trx);
          await asNumber(trx, "not a number");
        }),
        /invalid input syntax/,
      );
      await assert.rejects(ahead ?? Promise.resolve(), /invalid input syntax/);
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          readAhead(trx);
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      await assert.rejects(ahead ?? Promise.resolve(), /ended before this read was sent/);
      // The connection is fine afterwards.
      assert.ok(await database.db.transaction().execute((trx) => receivedAt(trx, projectId, false)));
    });
  });

  describe("statements sent with the commit on PostgreSQL", () => {
    test("run as `execute` of the connection's prepared statement once it has one: same outcome, no new plan", async () => {
      const ctx = await createTestContext(engine);
      // One connection, so every transaction below runs where the statement was prepared.
      const database = openDatabase(engine.newDatabaseUrl(), { poolSize: 1 });
      try {
        const { project } = await createProject(ctx.services);
        const names = ["First", "it's 'quoted' $1; -- not a comment", "Third"];
        for (const name of names) {
          await database.db.transaction().execute(async (trx) => {
            await renameWithCommit(trx, name, project.id);
            await setDescriptionWithCommit(trx, name === "Third" ? null : `about ${name}`, project.id);
          });
          const [row] = await database.db
            .selectFrom("projects")
            .select(["name", "description"])
            .where("id", "=", project.id)
            .execute();
          assert.deepEqual(row, { name, description: name === "Third" ? null : `about ${name}` });
        }
        // Prepared on the first transaction (sent alone), run from it by the next two batches: three
        // runs of one prepared statement. Written out as literals, it would have run once.
        const { rows } = await sql<{ runs: string }>`
          select generic_plans + custom_plans as runs from pg_prepared_statements
          where statement like 'update "projects" set "name" = $1%'`.execute(database.db);
        assert.deepEqual(
          rows.map((r) => Number(r.runs)),
          [names.length],
        );
        // And it is batched, not sent alone: its failure surfaces at the COMMIT, after the code that
        // follows it ran. Taking its own id prepares it; taking another project's fails.
        const other = await createProject(ctx.services);
        await database.db.transaction().execute((trx) => takeIdWithCommit(trx, project.id, project.id));
        let ranOn = false;
        await assert.rejects(
          database.db.transaction().execute(async (trx) => {
            await takeIdWithCommit(trx, other.project.id, project.id);
            ranOn = true;
          }),
          /duplicate key/,
        );
        assert.equal(ranOn, true);
      } finally {
        await database.close();
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
