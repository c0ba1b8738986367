import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { feedListens } from "../helpers/change-feed.js";
import { createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { postgresMissing } from "../helpers/requirements.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// PRODUCT.md §5: a revocation holds from the very next request. Concurrent requests for one cache
// key share one execution (single flight, graphql/execution.ts). A request that arrives after an
// unpublish has returned must not be handed the answer of an execution that resolved access before
// it: that execution read the project as published. PostgreSQL only, because the test holds the
// execution still with a table lock (SQLite's WAL readers cannot be blocked).

const query = "query ($id: ID!) { project(id: $id) { name rooms { edges { node { name } } } } }";

describe("a request joining an execution begun before a revocation", {
  skip: postgresMissing() || false,
}, () => {
  let server: TestServer;
  let sql: PlainSql;

  before(async () => {
    server = await startTestServer({
      name: "postgres",
      newDatabaseUrl: () => process.env.DATABASE_URL_POSTGRES ?? "",
    });
    sql = await plainSql(server.config.databaseUrl);
    await feedListens(server.services);
  });
  after(async () => {
    await sql?.run("rollback").catch(() => {});
    await sql?.close();
    await server?.close();
  });

  /** Waits until a backend of the test database waits for a lock (the held execution). */
  async function executionWaits(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const rows = await sql.all(
        "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows.length > 0) return;
      assert.ok(Date.now() < deadline, "the first execution never reached the locked table");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  // Failed before an execution's answer was shared only when nothing it read changed meanwhile
  // (graphql/execution.ts, `shareable`): the late request got the project and its rooms.
  test("the public reader of a project unpublished meanwhile gets nothing", async () => {
    const { project, owner } = await createPublishedProject(server.services);
    await server.services.agenda.createRoom(owner, { projectId: project.id, name: "Hall A" });
    const variables = { id: project.id };
    // Holds the first execution after it resolved access, when it reads the rooms.
    await sql.run("begin");
    await sql.run("lock table rooms in access exclusive mode");
    const first = gql(server.url, query, { variables });
    await executionWaits();
    await server.services.projects.update(owner, project.id, { status: "DRAFT" });
    // Sent after the unpublish returned: it must be refused, whatever is under way.
    const second = gql(server.url, query, { variables });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sql.run("commit");
    const [, late] = await Promise.all([first, second]);
    assert.equal(late.body.data?.project ?? null, null, JSON.stringify(late.body));
  });
});
