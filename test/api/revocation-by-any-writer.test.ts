import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { changeFeedApplicationName } from "../../src/db/change-feed.js";
import { changeArrives, feedListens } from "../helpers/change-feed.js";
import { runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { uniqueRedisPrefix } from "../helpers/redis.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { redisServerPath, startThrowawayRedis, type ThrowawayRedis } from "../helpers/throwaway-servers.js";

// PRODUCT.md §5: a revocation holds from the next request on every server process, whoever makes it.
// Two servers share one database and a Redis that is killed before anything happens: nothing about
// access may depend on Redis. The revocations are made in plain SQL on a connection of their own (an
// operator stopping a leak at 3 a.m.) and by the CLI. On PostgreSQL a plain-SQL write reaches the
// servers through the database's own notification, which the test waits for (a fraction of a
// millisecond); the CLI's writes wait for every server to have heard them before it exits.

const redisSkip = redisServerPath() ? false : "redis-server is absent: the drill kills a Redis of its own";
if (redisSkip && process.env.CI === "true") throw new Error("CI=true but redis-server is absent");

const projectQuery = "query ($id: ID!) { project(id: $id) { name } }";
const trackMutation = `mutation ($id: ID!) { createTrack(input: { projectId: $id, name: "After" }) { track { id } } }`;

for (const engine of testEngines()) {
  describe(`a revocation by any writer holds on every process, Redis down (${engine.name})`, {
    skip: redisSkip,
  }, () => {
    let redis: ThrowawayRedis;
    let servers: TestServer[] = [];
    let sql: PlainSql;
    let databaseUrl = "";

    before(async () => {
      databaseUrl = engine.newDatabaseUrl();
      redis = await startThrowawayRedis();
      const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_KEY_PREFIX: uniqueRedisPrefix() };
      servers = [await startTestServer(engine, env), await startTestServer(engine, env)];
      sql = await plainSql(databaseUrl);
      await redis.stop();
      for (const server of servers) await feedListens(server.services);
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await sql?.close();
      await redis?.stop();
    });

    /** Asks every server twice, so that each has remembered the caller and cached the answer. */
    async function answeredEverywhere(projectId: string, token?: string): Promise<void> {
      for (const server of servers) {
        const first = await gql(server.url, projectQuery, { token, variables: { id: projectId } });
        assert.equal(first.body.data?.project?.name !== undefined, true, JSON.stringify(first.body));
        const again = await gql(server.url, projectQuery, { token, variables: { id: projectId } });
        assert.equal(again.body.extensions.cached, true, "not cached, so the test would prove nothing");
      }
    }

    /** Runs a plain-SQL write of `projectId`'s access and waits until every server could have heard. */
    async function inPlainSql(projectId: string, statement: string, ...values: unknown[]): Promise<void> {
      const heard = servers.map((server) => changeArrives(server.services, projectId));
      await sql.run(statement, ...values);
      await Promise.all(heard);
    }

    /** An app with agenda:read, linked by its owner to a new project and answered by every server. */
    async function linkedApp() {
      const [a] = servers as [TestServer];
      const { app, token } = await createApp(a.services, { permissions: ["agenda:read"] });
      const { project, ownerId } = await createProject(a.services);
      await a.services.apps.authorize(
        { kind: "user", userId: ownerId },
        { appId: app.id, projectId: project.id },
      );
      await answeredEverywhere(project.id, token);
      return { app, token, project };
    }

    async function refusedEverywhere(
      projectId: string,
      token: string | undefined,
      code: string,
    ): Promise<void> {
      for (const server of servers) {
        const answer = await gql(server.url, projectQuery, { token, variables: { id: projectId } });
        assert.equal(
          answer.body.errors?.[0]?.extensions?.code,
          code,
          `${server.url}: ${JSON.stringify(answer.body)}`,
        );
        assert.equal(answer.body.data?.project ?? null, null);
      }
    }

    test("a link revoked in plain SQL", async () => {
      const { app, token, project } = await linkedApp();
      await inPlainSql(
        project.id,
        "update app_links set revoked_at = ? where app_id = ? and project_id = ?",
        new Date().toISOString(),
        app.id,
        project.id,
      );
      await refusedEverywhere(project.id, token, "NOT_FOUND");
    });

    test("a token replaced in plain SQL neither reads nor writes", async () => {
      const [a] = servers as [TestServer];
      const { app, token, projectId } = await createApp(a.services, {
        permissions: ["agenda:read", "agenda:write"],
      });
      await answeredEverywhere(projectId, token);
      await inPlainSql(projectId, "update apps set token_hash = ? where id = ?", "0".repeat(64), app.id);
      await refusedEverywhere(projectId, token, "UNAUTHENTICATED");
      for (const server of servers) {
        const write = await gql(server.url, trackMutation, { token, variables: { id: projectId } });
        assert.equal(write.status, 401);
      }
    });

    test("an app deleted in plain SQL", async () => {
      const [a] = servers as [TestServer];
      const { app, token, projectId } = await createApp(a.services);
      await answeredEverywhere(projectId, token);
      await inPlainSql(projectId, "delete from apps where id = ?", app.id);
      await refusedEverywhere(projectId, token, "UNAUTHENTICATED");
    });

    test("a project unpublished in plain SQL", async () => {
      const [a] = servers as [TestServer];
      const { project } = await createPublishedProject(a.services);
      await answeredEverywhere(project.id);
      await inPlainSql(project.id, "update projects set status = 'DRAFT' where id = ?", project.id);
      await refusedEverywhere(project.id, undefined, "NOT_FOUND");
    });

    // SQLite has no feed to cut: each process reads data_version.
    const feedTest = engine.name === "postgres" ? test : () => {};
    feedTest("a link revoked while the change feed is cut is refused, not answered from memory", async () => {
      const { app, token, project } = await linkedApp();
      // Both servers' feeds (they run in this process, so they carry its pid in their name).
      await sql.run(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?",
        `${changeFeedApplicationName}${process.pid}`,
      );
      const deadline = Date.now() + 5_000;
      while (servers.some((server) => server.services.database.externalWrites() !== undefined)) {
        assert.ok(Date.now() < deadline, "the servers did not notice their feed was cut");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Its notification reaches no one: the servers must not trust what they remember meanwhile.
      await sql.run(
        "update app_links set revoked_at = ? where app_id = ? and project_id = ?",
        new Date().toISOString(),
        app.id,
        project.id,
      );
      await refusedEverywhere(project.id, token, "NOT_FOUND");
      for (const server of servers) await feedListens(server.services);
      await refusedEverywhere(project.id, token, "NOT_FOUND");
    });

    test("a link revoked by the CLI, with no wait at all", async () => {
      const { app, token, project } = await linkedApp();
      const revoked = await runCliInProcess(["apps", "revoke", "--app", app.id, "--project", project.id], {
        DATABASE_URL: databaseUrl,
      });
      assert.equal(revoked.code, 0, revoked.stderr);
      await refusedEverywhere(project.id, token, "NOT_FOUND");
    });
  });
}
