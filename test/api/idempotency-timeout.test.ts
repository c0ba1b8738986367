import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import { lockDrill, registerMutation } from "../helpers/locked-registration.js";

// Only PostgreSQL can hold a row lock from another connection while the server keeps running
// (helpers/locked-registration.ts), which is how a keyed write is made to run past its deadline here.
const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("a keyed mutation cut off by the request timeout (postgres)", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  test("releases its key: nothing was done, so the retry with the same key runs and registers", async () => {
    if (!postgres) return;
    const drill = await lockDrill(postgres, { REQUEST_TIMEOUT_MS: "300" });
    const { server, token } = drill;
    try {
      const input = drill.input("Retry Rita", "rita@example.test");
      const headers = { "idempotency-key": randomUUID() };
      await drill.lock();
      const cutOff = await gql(server.url, registerMutation, { token, variables: { input }, headers });
      assert.equal(cutOff.status, 503);
      assert.equal(cutOff.body.errors[0].extensions.code, "TIMEOUT");
      await drill.release();
      // On a loaded machine the retry may itself pass 300 ms: each cut-off releases the key again.
      let retry = await gql(server.url, registerMutation, { token, variables: { input }, headers });
      for (let i = 0; i < 30 && retry.status === 503; i++) {
        retry = await gql(server.url, registerMutation, { token, variables: { input }, headers });
      }
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.headers.get("idempotent-replayed"), null);
      assert.deepEqual(retry.body.data.registerAttendee.userErrors, []);
      const replay = await gql(server.url, registerMutation, { token, variables: { input }, headers });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.body, retry.body);
      const rows = await server.database.db
        .selectFrom("attendees")
        .select("id")
        .where("project_id", "=", drill.projectId)
        .execute();
      assert.equal(rows.length, 1);
    } finally {
      await drill.close();
    }
  });
});
