import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { testEngines } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { gql } from "../../test/helpers/graphql.js";
import { lockDrill, registerMutation } from "../../test/helpers/locked-registration.js";
import { createTestContext } from "../../test/helpers/test-services.js";
import { StatementTimeoutError } from "./availability.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("PostgreSQL timeouts below the request deadline", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  test("every pooled connection has them, a tenth below REQUEST_TIMEOUT_MS", async () => {
    if (!postgres) return;
    const ctx = await createTestContext(postgres, { REQUEST_TIMEOUT_MS: "2000" });
    try {
      const { rows } = await sql<{ statement: string; idle: string }>`
        select current_setting('statement_timeout') as statement,
               current_setting('idle_in_transaction_session_timeout') as idle`.execute(ctx.database.db);
      assert.deepEqual(rows, [{ statement: "1800ms", idle: "1800ms" }]);
    } finally {
      await ctx.close();
    }
  });

  test("a statement running past the limit is cancelled by the server: TIMEOUT, and the pool goes on", async () => {
    if (!postgres) return;
    const ctx = await createTestContext(postgres, { REQUEST_TIMEOUT_MS: "400" });
    try {
      const started = performance.now();
      const error = await sql`select pg_sleep(5)`.execute(ctx.database.db).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof StatementTimeoutError, String(error));
      assert.equal(error.code, "TIMEOUT");
      assert.ok(performance.now() - started < 4000, "cancelled long before pg_sleep(5) ends");
      // Inside a transaction too: the transaction is rolled back, nothing of it kept.
      const { project } = await createProject(ctx.services);
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await trx
            .updateTable("projects")
            .set({ name: "Never kept" })
            .where("id", "=", project.id)
            .execute();
          await sql`select pg_sleep(5)`.execute(trx);
        }),
        StatementTimeoutError,
      );
      const [row] = await ctx.database.db
        .selectFrom("projects")
        .select("name")
        .where("id", "=", project.id)
        .execute();
      assert.equal(row?.name, project.name);
    } finally {
      await ctx.close();
    }
  });

  test("a transaction left idle past the limit is ended by the server; the next one gets a sound connection", async () => {
    if (!postgres) return;
    const ctx = await createTestContext(postgres, { REQUEST_TIMEOUT_MS: "300" });
    try {
      const { project } = await createProject(ctx.services);
      await assert.rejects(
        ctx.database.db.transaction().execute(async (trx) => {
          await trx.updateTable("projects").set({ name: "Left idle" }).where("id", "=", project.id).execute();
          await sleep(1000);
          await trx.selectFrom("projects").select("id").execute();
        }),
        (error: Error & { code?: string }) => error.code === "SERVICE_UNAVAILABLE",
      );
      const [row] = await ctx.database.db
        .selectFrom("projects")
        .select("name")
        .where("id", "=", project.id)
        .execute();
      assert.equal(row?.name, project.name);
      assert.equal(ctx.database.health.current.status, "up");
    } finally {
      await ctx.close();
    }
  });

  test("a request cut off while its statement waits on a lock leaves no statement behind holding a connection", async () => {
    if (!postgres) return;
    const drill = await lockDrill(postgres, { REQUEST_TIMEOUT_MS: "500" });
    const { server, token, blocker } = drill;
    try {
      // Another transaction holds the ticket type's row, which a registration locks to count seats.
      await drill.lock();
      const input = drill.input("Waiting Wendy", "wendy@example.test");
      const answer = await gql(server.url, registerMutation, { token, variables: { input } });
      // The same answer whichever fires first, PostgreSQL's cancel or the request's own deadline.
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.errors[0].extensions.code, "TIMEOUT");
      // The lock is still held; yet no backend waits for it any more: PostgreSQL cancelled the
      // registration's statement rather than letting it wait until the lock is given back.
      const waitingOnLock = async () =>
        Number(
          (
            await blocker.query<{ n: string }>(
              `select count(*) as n from pg_stat_activity
               where wait_event_type = 'Lock' and pid <> pg_backend_pid()
                 and query like '%ticket_types%' and datname = current_database()`,
            )
          ).rows[0]?.n,
        );
      const until = performance.now() + 3000;
      while ((await waitingOnLock()) > 0 && performance.now() < until) await sleep(50);
      assert.equal(await waitingOnLock(), 0);
    } finally {
      await drill.close();
    }
  });
});
