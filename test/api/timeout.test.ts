import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { globalId } from "../../src/graphql/builder.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer } from "../helpers/test-server.js";

// Only PostgreSQL can hold a row lock from another connection while the server keeps running:
// better-sqlite3 waits for a lock synchronously, blocking the whole process.
const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("request timeout (postgres)", { skip: postgres ? false : "needs DATABASE_URL_POSTGRES" }, () => {
  test("cuts off a write that runs too long with TIMEOUT and rolls its changes back", async () => {
    if (!postgres) return;
    const server = await startTestServer(postgres, { REQUEST_TIMEOUT_MS: "300" });
    const blocker = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
    await blocker.connect();
    try {
      const { project } = await createProject(server.services);
      const ticket = await createTicketType(server.services, systemActor, project.id);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        permissions: ["attendees:write"],
      });
      const register = `mutation($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } userErrors { field message } } }`;
      const input = {
        projectId: project.id,
        name: "Late Larry",
        email: "larry@example.test",
        ticketTypeId: globalId("TicketType", ticket.id),
      };

      // Another transaction holds the ticket type's row, which a registration locks to count seats.
      await blocker.query("begin");
      await blocker.query("select id from ticket_types where id = $1 for update", [ticket.id]);
      const cutOff = await gql(server.url, register, { token, variables: { input } });
      assert.equal(cutOff.status, 503);
      assert.equal(cutOff.body.errors[0].extensions.code, "TIMEOUT");
      assert.match(cutOff.body.errors[0].message, /rolled back/);

      // The registration goes on once the lock is gone, and must roll back rather than commit.
      await blocker.query("rollback");
      await sleep(300);
      const rows = await server.database.db
        .selectFrom("attendees")
        .select("id")
        .where("project_id", "=", project.id)
        .execute();
      assert.deepEqual(rows, []);
      // The same email registers fine now: the first attempt left nothing behind.
      const retry = await gql(server.url, register, { token, variables: { input } });
      assert.deepEqual(retry.body.data.registerAttendee.userErrors, []);
      assert.ok(retry.body.data.registerAttendee.attendee.id);
    } finally {
      await blocker.end();
      await server.close();
    }
  });

  test("while every execution slot waits on a lock, cached answers still go out", async () => {
    if (!postgres) return;
    const server = await startTestServer(postgres, { REQUEST_TIMEOUT_MS: "2000" });
    const blocker = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
    await blocker.connect();
    try {
      const { project } = await createPublishedProject(server.services);
      const ticket = await createTicketType(server.services, systemActor, project.id);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        permissions: ["attendees:write"],
      });
      const cachedQuery = `{ project(id: "${project.id}") { name } }`;
      // With the change feed listening a hit needs no connection: all ten will be taken below.
      await feedListens(server.services);
      await gql(server.url, cachedQuery);
      assert.equal((await gql(server.url, cachedQuery)).body.extensions.cached, true);

      // Ten registrations (PostgreSQL's ten execution slots, graphql/http.ts) wait on a held row.
      await blocker.query("begin");
      await blocker.query("select id from ticket_types where id = $1 for update", [ticket.id]);
      const register = `mutation($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } } }`;
      let settled = 0;
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
        }).finally(() => {
          settled += 1;
        }),
      );
      await sleep(200);
      const hit = await gql(server.url, cachedQuery);
      assert.equal(hit.status, 200);
      assert.equal(hit.body.extensions.cached, true);
      assert.equal(settled, 0, "the hit was answered while every slot was still taken");

      await blocker.query("rollback");
      const answers = await Promise.all(waiting);
      for (const answer of answers) assert.ok(answer.body.data.registerAttendee.attendee.id);
    } finally {
      await blocker.end();
      await server.close();
    }
  });
});
