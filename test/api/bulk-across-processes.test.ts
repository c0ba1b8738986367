import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { bulkProject } from "../helpers/bulk-project.js";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { ownDatabase } from "../helpers/throwaway-database.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");
const cancel = `mutation ($projectId: ID!) {
  bulkOperationCancel(projectId: $projectId) { bulkOperation { id status } userErrors { message code } } }`;

// Issue 44: two server processes on one PostgreSQL database, as behind a load balancer. A bulk
// operation started through one is run by whichever claims it, read and cancelled through the other,
// and its result downloaded through the other after the first has stopped: nothing of it lives in
// one process's folder.
describe("bulk operations across two processes on one PostgreSQL database", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  let first: TestServer;
  let second: TestServer;
  let firstRunning = true;
  let drop = async () => {};
  before(async () => {
    if (!postgres) return;
    const own = await ownDatabase(postgres, "bulk_processes");
    drop = own.drop;
    // ownDatabase's engine names the same database each time: both servers share it.
    first = await startTestServer(own.engine);
    second = await startTestServer(own.engine);
  });
  after(async () => {
    if (firstRunning) await first?.close();
    await second?.close();
    await drop();
  });

  test("started on one, cancelled and downloaded through the other, after the first has stopped", async () => {
    const bulk = await bulkProject(first, 2_500);
    const { projectId, token } = bulk;
    const onSecond = (query: string) => gql(second.url, query, { token, variables: { projectId } });

    // A cancel through the second process ends a job the first one may be running.
    assert.deepEqual((await bulk.start(token)).body.data.bulkOperationRunQuery.userErrors, []);
    const cancelled = (await onSecond(cancel)).body.data.bulkOperationCancel;
    assert.deepEqual(cancelled.userErrors, []);
    assert.equal((await bulk.until(token, bulk.ended)).status, "CANCELED");

    assert.deepEqual((await bulk.start(token)).body.data.bulkOperationRunQuery.userErrors, []);
    const done = await bulk.until(token, bulk.ended);
    assert.equal(done.status, "COMPLETED");
    const seen = (await onSecond(bulk.current)).body.data.currentBulkOperation;
    assert.equal(seen.id, done.id);
    assert.equal(seen.objectCount, 2_500);

    await first.close();
    firstRunning = false;
    const link = new URL(seen.url);
    const response = await fetch(`${second.url}${link.pathname}${link.search}`);
    assert.equal(response.status, 200);
    const ids = (await response.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).id);
    assert.equal(ids.length, 2_500);
    assert.equal(new Set(ids).size, 2_500);
  });
});
