import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

const query = "{ viewer { name } }";

for (const engine of testEngines()) {
  describe(`API authentication (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    async function expectUnauthenticated(headers: Record<string, string>) {
      const { status, headers: responseHeaders, body } = await gql(server.url, query, { headers });
      assert.equal(status, 401, `status for ${JSON.stringify(headers)}`);
      assert.equal(responseHeaders.get("www-authenticate"), 'Bearer error="invalid_token"');
      assert.equal(body.errors[0].extensions.code, "UNAUTHENTICATED");
      assert.equal(body.data, undefined);
    }

    test("rejects bad tokens of every shape with 401 and WWW-Authenticate", async () => {
      const { token } = await createApp(server.services);
      const typo = `${token.slice(0, 10)}${token[10] === "a" ? "b" : "a"}${token.slice(11)}`;
      for (const authorization of [
        "Bearer",
        "Bearer ",
        "bearer nope",
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        token,
        `Bearer ${typo}`,
        `Bearer ${token}x`,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer evg_${"A".repeat(38)}`,
        `Bearer ${token} ${token}`,
        "Bearer ' or 1=1 --",
      ]) {
        await expectUnauthenticated({ authorization });
      }
    });

    test("treats a token in the query string or a cookie as no token at all", async () => {
      const { token } = await createApp(server.services, { name: "Query app" });
      const viaQuery = await fetch(`${server.url}/api/graphql?access_token=${token}&token=${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      assert.deepEqual(((await viaQuery.json()) as { data: unknown }).data, { viewer: null });
      const viaCookie = await gql(server.url, query, {
        headers: { cookie: `token=${token}; session=${token}` },
      });
      assert.deepEqual([viaCookie.body.data, viaCookie.body.errors], [{ viewer: null }, undefined]);
    });

    // A token is looked up once and then remembered (graphql/authentication.ts) until a change
    // that may concern it: the request after the change must not be answered from memory. A change
    // of any project's project area (apps, members, settings) moves the credentials epoch, and on
    // the shared PostgreSQL database other test files make such changes all the time: a lookup
    // after one is right. So the two requests are sent again until none came between them (the
    // epoch stood still); a token that is never remembered still fails on the tenth try.
    async function rememberedToken(token: string) {
      await feedListens(server.services);
      const epoch = () => server.services.responseCache.credentialsEpoch();
      for (let attempt = 1; ; attempt++) {
        const before = epoch();
        await gql(server.url, query, { token });
        server.statements.length = 0;
        assert.equal((await gql(server.url, query, { token })).status, 200);
        const lookups = server.statements.filter((s) => /from "apps" where "token_hash"/.test(s));
        if (epoch() === before || attempt === 10) {
          assert.deepEqual(lookups, [], "the second request does not look the token up");
          return;
        }
      }
    }

    test("stops a rotated token at once and accepts the new one", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const { app, token } = await createApp(server.services, { name: "Rotating app" });
      assert.equal((await gql(server.url, query, { token })).body.data.viewer.name, "Rotating app");
      await rememberedToken(token);
      const { token: fresh } = await server.services.apps.rotateToken(systemActor, { id: app.id });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
      assert.equal((await gql(server.url, query, { token: fresh })).body.data.viewer.name, "Rotating app");
    });

    test("stops the token of a deleted app at once", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const { app, token } = await createApp(server.services);
      await rememberedToken(token);
      await server.services.apps.deleteApp(systemActor, { id: app.id });
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    test("a remembered token carries the app's new permissions at once", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const { app, token } = await createApp(server.services, { permissions: ["agenda:read"] });
      const permissions = `{ viewer { permissions } }`;
      await rememberedToken(token);
      assert.deepEqual((await gql(server.url, permissions, { token })).body.data.viewer.permissions, [
        "AGENDA_READ",
      ]);
      await server.services.apps.updateApp(systemActor, { id: app.id, permissions: ["attendees:read"] });
      const after = await gql(server.url, permissions, { token });
      assert.deepEqual(after.body.data.viewer.permissions, ["ATTENDEES_READ"]);
    });

    test("keeps public data readable with a valid token", async () => {
      const { project } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services);
      const { body } = await gql(
        server.url,
        `{ project(id: "${project.id}") { name } viewer { name permissions } }`,
        { token },
      );
      assert.deepEqual(body.data, {
        project: { name: project.name },
        viewer: { name: "Schedule Sync", permissions: ["AGENDA_READ"] },
      });
    });

    test("never writes a plaintext token to the database or the log", async () => {
      const { app, token } = await createApp(server.services, { permissions: ["attendees:read"] });
      await gql(server.url, query, { token });
      await gql(server.url, query, { headers: { authorization: `Bearer ${token}x` } });
      await server.services.apps.flushUsage();
      assert.ok(server.logs.lines.length > 0, "the server logged requests");
      assert.ok(!server.logs.text.includes(token), "token found in the log");
      assert.ok(!server.logs.text.includes(token.slice(4, 20)), "part of the token found in the log");
      const tables = ["apps", "app_links", "app_usage"] as const;
      for (const table of tables) {
        const rows = await server.database.db.selectFrom(table).selectAll().execute();
        assert.ok(!JSON.stringify(rows).includes(token.slice(4)), `token found in ${table}`);
      }
      const row = await server.database.db
        .selectFrom("apps")
        .selectAll()
        .where("id", "=", app.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.token_last4, token.slice(-4));
    });
  });
}
