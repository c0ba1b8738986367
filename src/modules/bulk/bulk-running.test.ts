import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { bulkProject } from "../../../test/helpers/bulk-project.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp } from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { abandonedReason } from "./bulk.runner.js";

// Enough rows that a job runs for a while (several pages), so a cancel or a revocation sent at
// once lands while it runs. Its pace is measured apart (bench/check/bulk-operations.test.ts).
const attendees = 10_000;
const cancel = `mutation ($projectId: ID!) {
  bulkOperationCancel(projectId: $projectId) { bulkOperation { id status } userErrors { message code } } }`;

for (const engine of testEngines()) {
  describe(`a bulk operation while it runs over ${attendees} attendees (${engine.name})`, () => {
    let server: TestServer;
    let bulk: Awaited<ReturnType<typeof bulkProject>>;
    let projectId: string;
    let token: string;
    before(async () => {
      server = await startTestServer(engine);
      bulk = await bulkProject(server, attendees);
      ({ projectId, token } = bulk);
    });
    after(async () => {
      await server.close();
    });
    test("one open operation per app and project; a cancel stops it and leaves nothing it wrote", async () => {
      assert.deepEqual((await bulk.start(token)).body.data.bulkOperationRunQuery.userErrors, []);
      const second = (await bulk.start(token)).body.data.bulkOperationRunQuery;
      assert.equal(second.bulkOperation, null);
      assert.equal(second.userErrors[0].code, "CONFLICT");
      // At once: 10,000 rows take a hundred pages, so the cancel lands while the job runs (or waits).
      const cancelled = await gql(server.url, cancel, { token, variables: { projectId } });
      const operation = cancelled.body.data.bulkOperationCancel.bulkOperation;
      assert.equal(operation.status, "CANCELED");
      const after = await bulk.until(token, bulk.ended);
      assert.equal(after.status, "CANCELED");
      // The cancel deletes what the job had written; a chunk its runner writes meanwhile is refused, or
      // written before the delete and deleted with the rest.
      const chunks = async () =>
        (
          await server.database.db
            .selectFrom("bulk_operation_chunks")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("operation_id", "=", operation.id)
            .executeTakeFirstOrThrow()
        ).n;
      for (let waited = 0; waited < 3_000 && Number(await chunks()) > 0; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(Number(await chunks()), 0);
    });

    test("stops with the reason when the project revokes the app's link mid-run", async () => {
      const other = await createApp(server.services, { permissions: ["attendees:read"] });
      await server.services.apps.authorize(bulk.organizer, { appId: other.app.id, projectId });
      assert.deepEqual((await bulk.start(other.token)).body.data.bulkOperationRunQuery.userErrors, []);
      // At once: 10,000 rows take a hundred pages, so the revocation lands while the job runs.
      await server.services.apps.revokeLink(bulk.organizer, { appId: other.app.id, projectId });
      const row = await server.database.db
        .selectFrom("bulk_operations")
        .selectAll()
        .where("app_id", "=", other.app.id)
        .executeTakeFirstOrThrow();
      for (
        let waited = 0;
        waited < 10_000 && (row.status === "RUNNING" || row.status === "CREATED");
        waited += 20
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        Object.assign(
          row,
          await server.database.db
            .selectFrom("bulk_operations")
            .selectAll()
            .where("id", "=", row.id)
            .executeTakeFirstOrThrow(),
        );
      }
      assert.equal(row.status, "FAILED");
      assert.equal(row.error, "Project not found");
      assert.ok(row.object_count < attendees, String(row.object_count));
      // And the app can no longer read it at all.
      const answer = await gql(server.url, bulk.current, { token: other.token, variables: { projectId } });
      assert.equal(answer.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    });

    test("fails, with a reason, a job left RUNNING by a process that died", async () => {
      const { db } = server.database;
      const dead = await createApp(server.services, { projectId, permissions: ["attendees:read"] });
      assert.deepEqual((await bulk.start(dead.token)).body.data.bulkOperationRunQuery.userErrors, []);
      await bulk.until(dead.token, bulk.ended);
      await db
        .updateTable("bulk_operations")
        .set({ status: "RUNNING", lease_owner: "a dead process", lease_until: "2000-01-01T00:00:00.000Z" })
        .where("app_id", "=", dead.app.id)
        .execute();
      // Any start wakes the runner, which first fails abandoned jobs.
      assert.deepEqual((await bulk.start(token)).body.data.bulkOperationRunQuery.userErrors, []);
      const operation = await bulk.until(dead.token, bulk.ended);
      assert.equal(operation.status, "FAILED");
      assert.equal(operation.errorMessage, abandonedReason);
      // That start runs to its end: its result spans several chunks, downloaded in order, whole.
      const done = await bulk.until(token, bulk.ended);
      assert.equal(done.status, "COMPLETED");
      const chunks = await server.database.db
        .selectFrom("bulk_operation_chunks")
        .select("seq")
        .where("operation_id", "=", done.id)
        .execute();
      assert.ok(chunks.length > 1, `${chunks.length} chunk(s)`);
      const ids = (await (await fetch(done.url ?? "")).text())
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).id);
      assert.equal(ids.length, attendees);
      assert.equal(new Set(ids).size, attendees);
    });
  });
}
