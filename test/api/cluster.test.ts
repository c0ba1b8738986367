import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { changeArrives, feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { redisTestUrl, uniqueRedisPrefix } from "../helpers/redis.js";
import { describeNeeding, redisMissing } from "../helpers/requirements.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { createTestContext } from "../helpers/test-services.js";

// An invalidation announced over Redis for an earlier write (creating the link, say) may still
// arrive while the first answer is computed and keep it out of the cache; asking again settles it.
async function servedFromCache(url: string, query: string, token?: string): Promise<boolean> {
  for (let attempt = 0; attempt < 10; attempt++) {
    if ((await gql(url, query, token ? { token } : {})).body.extensions.cached) return true;
  }
  return false;
}

for (const engine of testEngines()) {
  describeNeeding(await redisMissing(), `two processes sharing a database and Redis (${engine.name})`, () => {
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      const env = {
        DATABASE_URL: engine.newDatabaseUrl(),
        REDIS_URL: redisTestUrl,
        REDIS_KEY_PREFIX: uniqueRedisPrefix(),
        RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "4",
      };
      a = await startTestServer(engine, env);
      b = await startTestServer(engine, env);
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    test("share one public rate-limit budget", async () => {
      const statuses = [];
      for (const server of [a, b, a, b, a, b])
        statuses.push((await gql(server.url, "{ __typename }")).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    });

    test("a write on one process drops the other's cached answer", async () => {
      const { project } = await createPublishedProject(a.services);
      const { token } = await createApp(a.services, { projectId: project.id, permissions: [] });
      const query = `{ project(id: "${project.id}") { name } }`;
      await gql(a.url, query, { token });
      assert.ok(await servedFromCache(a.url, query, token));
      const arrived = changeArrives(a.services, project.id);
      await b.services.projects.update(systemActor, project.id, { name: "Renamed on B" });
      // SQLite: the very next request sees it (data_version). PostgreSQL: once the change feed has
      // delivered it, whatever Redis did.
      await arrived;
      const answer = await gql(a.url, query, { token });
      assert.equal(answer.body.data.project.name, "Renamed on B");
      assert.equal(answer.body.extensions.cached, false);
    });

    test("a link revoked on one process stops the app on the other", async () => {
      const { app, token } = await createApp(a.services, { permissions: ["agenda:read"] });
      const { project, ownerId } = await createProject(b.services);
      const owner = { kind: "user" as const, userId: ownerId };
      await b.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const query = `{ project(id: "${project.id}") { name } }`;
      assert.equal((await gql(a.url, query, { token })).body.data.project.name, project.name);
      assert.ok(await servedFromCache(a.url, query, token));
      const arrived = changeArrives(a.services, project.id);
      await b.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
      await arrived;
      const answer = await gql(a.url, query, { token });
      assert.equal(answer.body.data.project, null);
      assert.equal(answer.body.errors[0].extensions.code, "NOT_FOUND");
    });

    test("a token rotated on one process fails on the other at the next request", async () => {
      const { app, token, projectId } = await createApp(a.services);
      await feedListens(a.services);
      assert.equal((await gql(a.url, "{ viewer { name } }", { token })).status, 200);
      // Twice: the second one is answered from the remembered token, not its row.
      assert.equal((await gql(a.url, "{ viewer { name } }", { token })).status, 200);
      const arrived = changeArrives(a.services, projectId);
      await b.services.apps.rotateToken(systemActor, { id: app.id });
      await arrived;
      assert.equal((await gql(a.url, "{ viewer { name } }", { token })).status, 401);
    });
  });
}

for (const engine of testEngines()) {
  describe(`a server and a CLI process without Redis (${engine.name})`, () => {
    test("a write by the other process is not answered from the server's cache once known", async () => {
      const url = engine.newDatabaseUrl();
      const server = await startTestServer(engine, { DATABASE_URL: url });
      // The CLI builds its own services over the same database and shares nothing else.
      const cli = await createTestContext(engine, { DATABASE_URL: url });
      try {
        const { project } = await createPublishedProject(cli.services);
        const query = `{ project(id: "${project.id}") { name } }`;
        await feedListens(server.services);
        await gql(server.url, query);
        assert.equal((await gql(server.url, query)).body.extensions.cached, true);
        // On PostgreSQL the change is pushed: not answered from the cache once it has arrived.
        const arrived = changeArrives(server.services, project.id);
        await cli.services.projects.update(systemActor, project.id, { status: "DRAFT" });
        await arrived;
        const after = await gql(server.url, query);
        assert.equal(after.body.data.project, null);
        assert.equal(after.body.errors[0].extensions.code, "NOT_FOUND");
      } finally {
        await cli.close();
        await server.close();
      }
    });
  });
}
