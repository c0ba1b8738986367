import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import pg from "pg";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer } from "../helpers/test-server.js";

// Only PostgreSQL can hold a row lock from another connection while the server keeps running
// (timeout.test.ts says why), which is how a keyed write is made to run past its deadline here.
const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("a keyed mutation cut off by the request timeout (postgres)", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  test("releases its key: nothing was done, so the retry with the same key runs and registers", async () => {
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
        name: "Retry Rita",
        email: "rita@example.test",
        ticketTypeId: globalId("TicketType", ticket.id),
      };
      const headers = { "idempotency-key": randomUUID() };
      await blocker.query("begin");
      await blocker.query("select id from ticket_types where id = $1 for update", [ticket.id]);
      const cutOff = await gql(server.url, register, { token, variables: { input }, headers });
      assert.equal(cutOff.status, 503);
      assert.equal(cutOff.body.errors[0].extensions.code, "TIMEOUT");
      await blocker.query("rollback");
      // On a loaded machine the retry may itself pass 300 ms: each cut-off releases the key again.
      let retry = await gql(server.url, register, { token, variables: { input }, headers });
      for (let i = 0; i < 30 && retry.status === 503; i++) {
        retry = await gql(server.url, register, { token, variables: { input }, headers });
      }
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.headers.get("idempotent-replayed"), null);
      assert.deepEqual(retry.body.data.registerAttendee.userErrors, []);
      const replay = await gql(server.url, register, { token, variables: { input }, headers });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.body, retry.body);
      const rows = await server.database.db
        .selectFrom("attendees")
        .select("id")
        .where("project_id", "=", project.id)
        .execute();
      assert.equal(rows.length, 1);
    } finally {
      await blocker.end();
      await server.close();
    }
  });
});
