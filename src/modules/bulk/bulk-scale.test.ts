import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp, createTicketType, userActor } from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { guessMapping, parseAttendeeCsv } from "../attendees/attendees-csv.js";
import { abandonedReason, bulkFilePath } from "./bulk.runner.js";
import { bulkDirectory } from "./bulk.service.js";

const attendees = 20_000;
const run = `mutation ($projectId: ID!, $query: String!) {
  bulkOperationRunQuery(projectId: $projectId, query: $query) {
    bulkOperation { id status } userErrors { field message code } } }`;
const current = `query ($projectId: ID!) {
  currentBulkOperation(projectId: $projectId) { id status objectCount errorMessage url } }`;
const cancel = `mutation ($projectId: ID!) {
  bulkOperationCancel(projectId: $projectId) { bulkOperation { id status } userErrors { message code } } }`;

for (const engine of testEngines()) {
  describe(`a bulk operation over ${attendees} attendees (${engine.name})`, () => {
    let server: TestServer;
    let projectId: string;
    let token: string;
    let organizer: ReturnType<typeof userActor>;
    const query = () => `{ project(id: "${projectId}") { attendees { edges { node {
      id name email company status ticketCode registeredAt } } } } }`;

    before(async () => {
      server = await startTestServer(engine);
      const made = await createApp(server.services, { permissions: ["attendees:read"] });
      projectId = made.projectId;
      token = made.token;
      organizer = userActor(made.ownerId ?? "");
      await createTicketType(server.services, organizer, projectId, {
        name: "Standard",
        quantity: attendees,
      });
      const rows = Array.from({ length: attendees }, (_, i) => `Person ${i},p${i}@example.test,Standard`);
      const parsed = await parseAttendeeCsv(`name,email,ticket_type\n${rows.join("\n")}\n`);
      const outcome = await server.services.attendeeFiles.importRows(
        organizer,
        projectId,
        parsed,
        guessMapping(parsed.headers),
        {
          dryRun: false,
        },
      );
      assert.equal(outcome.imported, attendees);
    });
    after(async () => {
      await server.close();
    });

    const start = (as: string) =>
      gql(server.url, run, { token: as, variables: { projectId, query: query() } });
    const read = async (as: string) =>
      (await gql(server.url, current, { token: as, variables: { projectId } })).body.data
        .currentBulkOperation;
    async function until(as: string, done: (operation: { status: string; objectCount: number }) => boolean) {
      for (let waited = 0; waited < 120_000; waited += 20) {
        const operation = await read(as);
        if (operation && done(operation)) return operation;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error("the bulk operation did not get there");
    }
    const ended = (o: { status: string }) => o.status !== "CREATED" && o.status !== "RUNNING";

    test("writes every attendee within the time goal while /healthz and the event loop stay responsive", async () => {
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      // What the import left running (its projections, mail and webhook queues) is measured apart.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const idleMaxMs = loop.max / 1e6;
      loop.reset();
      let slowestHealth = 0;
      let polling = true;
      const health = (async () => {
        while (polling) {
          const began = performance.now();
          assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
          slowestHealth = Math.max(slowestHealth, performance.now() - began);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const began = performance.now();
      assert.deepEqual((await start(token)).body.data.bulkOperationRunQuery.userErrors, []);
      const operation = await until(token, ended);
      const seconds = (performance.now() - began) / 1000;
      polling = false;
      await health;
      loop.disable();
      const loopMaxMs = loop.max / 1e6;
      console.log(
        `bulk ${engine.name}: ${attendees} attendees in ${seconds.toFixed(1)} s ` +
          `(${Math.round(attendees / seconds)}/s); slowest /healthz ${slowestHealth.toFixed(0)} ms; ` +
          `event loop delay max ${loopMaxMs.toFixed(0)} ms (idle before: ${idleMaxMs.toFixed(0)} ms), p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms; ` +
          `rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`,
      );
      assert.equal(operation.status, "COMPLETED", operation.errorMessage);
      assert.equal(operation.objectCount, attendees);
      // The goal is 200,000 in 60 s (a tenth of the rows in 6 s); the bound here leaves room
      // for a loaded test machine and catches a regression of the pace, not the goal itself.
      assert.ok(seconds < 12, `${seconds} s`);
      // The job yields between pages, so /healthz answers throughout. The bound is loose because the
      // shared test machine's load (not the job) sets the delays seen here; the figures are printed.
      assert.ok(slowestHealth < 1_000, `slowest /healthz ${slowestHealth} ms`);
      const text = await (await fetch(operation.url)).text();
      assert.equal(text.split("\n").length - 1, attendees);
    });

    test("one open operation per app and project; a cancel stops it and leaves no file", async () => {
      assert.deepEqual((await start(token)).body.data.bulkOperationRunQuery.userErrors, []);
      const second = (await start(token)).body.data.bulkOperationRunQuery;
      assert.equal(second.bulkOperation, null);
      assert.equal(second.userErrors[0].code, "CONFLICT");
      // At once: 20,000 rows take over a second, so the cancel lands while the job runs (or waits).
      const cancelled = await gql(server.url, cancel, { token, variables: { projectId } });
      const operation = cancelled.body.data.bulkOperationCancel.bulkOperation;
      assert.equal(operation.status, "CANCELED");
      const after = await until(token, ended);
      assert.equal(after.status, "CANCELED");
      const directory = bulkDirectory(server.config.databaseUrl);
      // The runner sees the cancel at its next lease renewal (every 500 ms) and removes its file; a
      // job that wrote its last page first renames it, finds its row cancelled, and removes it then.
      const anyFile = () =>
        existsSync(bulkFilePath(directory, operation.id)) ||
        existsSync(`${bulkFilePath(directory, operation.id)}.partial`);
      for (let waited = 0; waited < 3_000 && anyFile(); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(existsSync(bulkFilePath(directory, operation.id)), false);
      assert.equal(existsSync(`${bulkFilePath(directory, operation.id)}.partial`), false);
    });

    test("stops with the reason when the project revokes the app's link mid-run", async () => {
      const other = await createApp(server.services, { permissions: ["attendees:read"] });
      await server.services.apps.authorize(organizer, { appId: other.app.id, projectId });
      assert.deepEqual((await start(other.token)).body.data.bulkOperationRunQuery.userErrors, []);
      // At once: 20,000 rows take over a second, so the revocation lands while the job runs.
      await server.services.apps.revokeLink(organizer, { appId: other.app.id, projectId });
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
      const answer = await gql(server.url, current, { token: other.token, variables: { projectId } });
      assert.equal(answer.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    });

    test("fails, with a reason, a job left RUNNING by a process that died", async () => {
      const { db } = server.database;
      const dead = await createApp(server.services, { projectId, permissions: ["attendees:read"] });
      assert.deepEqual((await start(dead.token)).body.data.bulkOperationRunQuery.userErrors, []);
      await until(dead.token, ended);
      await db
        .updateTable("bulk_operations")
        .set({ status: "RUNNING", lease_owner: "a dead process", lease_until: "2000-01-01T00:00:00.000Z" })
        .where("app_id", "=", dead.app.id)
        .execute();
      // Any start wakes the runner, which first fails abandoned jobs.
      assert.deepEqual((await start(token)).body.data.bulkOperationRunQuery.userErrors, []);
      const operation = await until(dead.token, ended);
      assert.equal(operation.status, "FAILED");
      assert.equal(operation.errorMessage, abandonedReason);
      await until(token, ended);
    });
  });
}
