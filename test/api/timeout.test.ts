import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { changeArrives, feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { lockDrill, registerMutation } from "../helpers/locked-registration.js";
import { startTestServer } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

// Only PostgreSQL can hold a row lock from another connection while the server keeps running:
// better-sqlite3 waits for a lock synchronously, blocking the whole process.
const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("request timeout (postgres)", { skip: postgres ? false : "needs DATABASE_URL_POSTGRES" }, () => {
  test("cuts off a write that runs too long with TIMEOUT and rolls its changes back", async () => {
    if (!postgres) return;
    const drill = await lockDrill(postgres, { REQUEST_TIMEOUT_MS: "300" });
    const { server, token } = drill;
    try {
      const input = drill.input("Late Larry", "larry@example.test");
      // Another transaction holds the ticket type's row, which a registration locks to count seats.
      await drill.lock();
      const cutOff = await gql(server.url, registerMutation, { token, variables: { input } });
      assert.equal(cutOff.status, 503);
      assert.equal(cutOff.body.errors[0].extensions.code, "TIMEOUT");
      assert.match(cutOff.body.errors[0].message, /rolled back/);

      // The registration goes on once the lock is gone, and must roll back rather than commit.
      await drill.release();
      await sleep(300);
      const rows = await server.database.db
        .selectFrom("attendees")
        .select("id")
        .where("project_id", "=", drill.projectId)
        .execute();
      assert.deepEqual(rows, []);
      // The same email registers fine now: the first attempt left nothing behind.
      const retry = await gql(server.url, registerMutation, { token, variables: { input } });
      assert.deepEqual(retry.body.data.registerAttendee.userErrors, []);
      assert.ok(retry.body.data.registerAttendee.attendee.id);
    } finally {
      await drill.close();
    }
  });

  // Without the execution slots, the registrations beyond the pool's connections wait for one and
  // hear BUSY after the pool's wait (as documented in graphql/execution.ts), not for a slot.
  const slotsOff = fastPathOff("execution-slots");
  test("while every connection waits on a lock, hits go out and the rest hear the server is busy", {
    skip: slotsOff,
  }, async () => {
    if (!postgres) return;
    // Long enough for the registrations to outwait the pool's five seconds below.
    const server = await startTestServer(postgres, { REQUEST_TIMEOUT_MS: "10000" });
    const blocker = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
    const writer = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
    await blocker.connect();
    await writer.connect();
    try {
      const { project } = await createPublishedProject(server.services);
      const ticket = await createTicketType(server.services, systemActor, project.id);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        permissions: ["attendees:write"],
      });
      const { project: other } = await createProject(server.services);
      const { token: newcomer } = await createApp(server.services, { projectId: other.id, permissions: [] });
      const cachedQuery = `{ project(id: "${project.id}") { name } }`;
      // With the change feed listening a hit needs no connection: all of them are taken below.
      await feedListens(server.services);
      await gql(server.url, cachedQuery);
      assert.equal((await gql(server.url, cachedQuery)).body.extensions.cached, true);

      // Ten registrations wait on a held row: as many as the pool has connections (four in the
      // tests) take an execution slot each (graphql/execution.ts) and hold one; the rest wait for a slot.
      await blocker.query("begin");
      await blocker.query("select id from ticket_types where id = $1 for update", [ticket.id]);
      const register = `mutation($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } } }`;
      let settled = 0;
      // What answered early, for the message of a failure (once seen in CI, never locally).
      const early: unknown[] = [];
      const waiting = Array.from({ length: 10 }, (_, i) =>
        gql(server.url, register, {
          token,
          variables: {
            input: {
              projectId: project.id,
              name: `Queued ${i}`,
              email: `queued-${i}@example.test`,
              ticketTypeId: globalId("TicketType", ticket.id),
            },
          },
        }).then(
          (answer) => {
            settled += 1;
            early.push({ status: answer.status, body: answer.body });
            return answer;
          },
          (error: unknown) => {
            settled += 1;
            early.push(String(error));
            throw error;
          },
        ),
      );
      await sleep(200);
      // Meanwhile another process changes another project's settings (in CI, every test file's
      // writes to the shared database arrive on this server's feed). That must not send this
      // project's hits to the database, where no connection is free: the failed CI of round five's stop.
      const elsewhere = changeArrives(server.services, other.id);
      await writer.query(
        "update project_versions set project_version = project_version + 1 where project_id = $1",
        [other.id],
      );
      await elsewhere;
      const hit = await gql(server.url, cachedQuery);
      assert.equal(hit.status, 200, JSON.stringify(hit.body));
      assert.equal(hit.body.extensions.cached, true);
      assert.equal(settled, 0, "the hit was answered while every slot was still taken");

      // A token not seen before must be read, and no connection comes free within the pool's five
      // seconds: the server says it is busy, without taking the database for down (which would
      // refuse every request at once until a probe got through).
      const busy = await gql(server.url, "{ viewer { projects { totalCount } } }", { token: newcomer });
      assert.equal(busy.status, 503, JSON.stringify(busy.body));
      assert.equal(busy.body.errors[0].extensions.reason, "BUSY");
      assert.equal(busy.headers.get("retry-after"), "1");
      assert.equal(server.database.health.current.status, "up");
      // Nor does /readyz wait for a pooled connection (it gave up after 2 s with 503): a load
      // balancer must not take out a process that is busy, not broken. It asks on a connection
      // of its own, and still says 503 when the database is down (test/ops/postgres-outage.test.ts).
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
      assert.equal(
        settled,
        0,
        `the registrations still wait on the lock, or for a slot; answered: ${JSON.stringify(early)}`,
      );

      await blocker.query("rollback");
      const answers = await Promise.all(waiting);
      for (const answer of answers) assert.ok(answer.body.data.registerAttendee.attendee.id);
    } finally {
      await writer.end();
      await blocker.end();
      await server.close();
    }
  });
});
