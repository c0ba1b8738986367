import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { developerSteps, projectName } from "../helpers/developer-steps.js";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import type { TestResponse } from "../helpers/http-client.js";
import { serverPerSuite } from "../helpers/test-server.js";

// An app's token: shown once, stored and logged nowhere, regenerated, ended with its app.

for (const engine of testEngines()) {
  describe(`app tokens in the developer pages (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    const { organizer, newProject, addApp, readsName } = developerSteps(server);

    /** Every row of every table as text, to prove a secret is stored nowhere. */
    async function databaseText(): Promise<string> {
      const { db } = server.database;
      const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
      const parts: string[] = [];
      for (const table of tables.filter((t) => !t.isView)) {
        const name = table.schema ? `${table.schema}.${table.name}` : table.name;
        const { rows } = await sql`select * from ${sql.table(name)}`.execute(db);
        parts.push(JSON.stringify(rows));
      }
      assert.ok(parts.join("").includes("Schedule Sync"), "the dump reads the apps table");
      return parts.join("\n");
    }

    function assertNoToken(page: TestResponse, token: string, where: string, showsLast4: boolean) {
      assert.equal(page.status, 200, where);
      assert.ok(!page.body.includes(token), `${where} must not show the token`);
      assert.equal(
        page.body.includes(`evg_…${token.slice(-4)}`),
        showsLast4,
        `${where}: the last 4 characters`,
      );
    }

    test("shows a new token once and never stores, logs or shows it again", async () => {
      const { client } = await organizer();
      const projectId = await newProject(client);
      const empty = await client.get(`/b/${projectId}/settings/api`);
      assert.match(empty.body, /No apps yet/);
      const { response, token, path } = await addApp(client, projectId, {
        permissions: ["agenda:read", "tickets:read"],
      });
      assert.match(response.body, /role="dialog"/);
      assert.match(response.body, /data-copy="#new-token"/);
      assert.match(response.body, />OK</);
      assert.equal(response.headers.get("cache-control"), "no-store");
      // The answer's history entry becomes the plain API tab, so a reload never posts again.
      assert.match(response.body, new RegExp(`data-replace-url="/b/${projectId}/settings/api"`));
      assert.equal(response.headers.getSetCookie().length, 0, "nothing about the token goes into a cookie");

      assert.deepEqual((await readsName(token, projectId)).data, { project: { name: "Dev Days" } });

      for (const [page, showsLast4] of [
        [`/b/${projectId}/settings/api`, true],
        [path, true],
        [`${path}/linked-projects`, false],
      ] as const) {
        assertNoToken(await client.get(page), token, page, showsLast4);
      }
      const apiTab = await client.get(`/b/${projectId}/settings/api`);
      assert.match(apiTab.body, /Read the agenda/);
      assert.match(apiTab.body, /Read ticket types/);
      const stored = await databaseText();
      assert.ok(!stored.includes(token.slice(4)), "the database holds only a hash");
      assert.ok(!server.logs.text.includes(token.slice(4)), "the log never holds the token");
    });

    test("regenerates a token: the old one fails at once; deleting the app ends the new one", async () => {
      const { client } = await organizer();
      const projectId = await newProject(client);
      const { token: first, path } = await addApp(client, projectId);
      await client.get(path);
      const forged = await client.post(`${path}/token`, { _csrf: null });
      assert.equal(forged.status, 403);
      assert.ok((await readsName(first, projectId)).data.project, "no token was rotated without CSRF");

      const rotated = await client.post(`${path}/token`, {});
      assert.equal(rotated.status, 200);
      const second =
        /id="new-token"[^>]*>\s*(evg_[A-Za-z0-9]+)/.exec(rotated.body)?.[1] ?? assert.fail(rotated.body);
      assert.notEqual(second, first);
      assert.match(rotated.body, new RegExp(`data-replace-url="${path}"`));
      const old = await gql(server.url, projectName(projectId), { token: first });
      assert.equal(old.status, 401);
      assert.equal(old.body.errors[0].extensions.code, "UNAUTHENTICATED");
      assert.deepEqual((await readsName(second, projectId)).data, { project: { name: "Dev Days" } });
      assertNoToken(await client.get(path), second, path, true);
      assert.ok(!(await databaseText()).includes(second.slice(4)));

      assert.equal((await client.post(`${path}/delete`, { _csrf: null })).status, 403);
      assert.ok((await readsName(second, projectId)).data.project, "not deleted without CSRF");
      const deleted = await client.post(`${path}/delete`, {});
      assert.equal(deleted.status, 303);
      assert.equal(deleted.headers.get("location"), `/b/${projectId}/settings/api`);
      const list = await client.get(`/b/${projectId}/settings/api`);
      assert.match(list.body, /was deleted; its token no longer works/);
      assert.match(list.body, /No apps yet/);
      assert.equal((await gql(server.url, projectName(projectId), { token: second })).status, 401);
      assert.equal((await client.get(path)).status, 404);
    });
  });
}
