import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { developerSteps } from "../helpers/developer-steps.js";
import { testEngines } from "../helpers/engines.js";
import { addMember, createUser } from "../helpers/factories.js";
import type { HttpClient, TestResponse } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The API tab and app pages: their forms, who may see and change them, CSRF, and escaping.

const xss = "<img src=x onerror=alert(1)>";
const escapedXss = "&lt;img src=x onerror=alert(1)";

for (const engine of testEngines()) {
  describe(`developer pages over HTTP (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    const { organizer, connect, newProject, addApp, readsName } = developerSteps(server);

    test("refuses an app without a name or with an unknown permission, keeping the input", async () => {
      const { client } = await organizer();
      const projectId = await newProject(client);
      await client.get(`/b/${projectId}/settings/api`);
      const blank = await client.post(`/b/${projectId}/settings/api/apps`, {
        name: " ",
        description: "Kept",
        permissions: ["tickets:read"],
      });
      assert.equal(blank.status, 400);
      assert.match(blank.body, /App name must not be empty\./);
      assert.match(blank.body, /Kept<\/textarea>/);
      assert.match(blank.body, /value="tickets:read" checked/);
      const unknown = await client.post(`/b/${projectId}/settings/api/apps`, {
        name: "Sync",
        permissions: ["admin:all"],
      });
      assert.equal(unknown.status, 400);
      assert.match(unknown.body, /Unknown permission &quot;admin:all&quot;/);
      assert.doesNotMatch(unknown.body, /role="dialog"/);
      assert.deepEqual(await server.services.apps.listForProject({ kind: "system" }, projectId), []);
    });

    test("lets members see the apps and integrations but not change them; strangers see nothing", async () => {
      const { client, user } = await organizer();
      const projectId = await newProject(client);
      const { path, appId } = await addApp(client, projectId, { name: "Badge printer" });
      const member = await createUser(server.services);
      await addMember(server.services, { kind: "user", userId: user.id }, projectId, member.email, "MEMBER");
      const memberClient = await logIn(server.url, member.email);
      const list = await memberClient.get(`/b/${projectId}/settings/api`);
      assert.equal(list.status, 200);
      assert.match(list.body, /Badge printer/);
      assert.doesNotMatch(list.body, /aria-label="Add app"/);
      assert.doesNotMatch(list.body, new RegExp(`href="${path}"`));
      assert.match(
        list.body,
        /Only the project&#39;s owners and admins can add and change apps|Only the project's owners and admins can add/,
      );
      const attempt = await memberClient.post(`/b/${projectId}/settings/api/apps`, {
        name: "Mine",
        permissions: [],
      });
      assert.equal(attempt.status, 403);
      for (const page of [path, `${path}/linked-projects`])
        assert.equal((await memberClient.get(page)).status, 404);
      assert.equal((await memberClient.post(`${path}/token`, {})).status, 404);
      const integrations = await memberClient.get(`/b/${projectId}/settings/integrations`);
      assert.equal(integrations.status, 200);
      assert.match(integrations.body, /No connected apps/);

      const { client: stranger } = await organizer();
      const otherProject = await newProject(stranger, "Elsewhere");
      for (const page of [
        `/b/${projectId}/settings/api`,
        `/b/${projectId}/settings/integrations`,
        path,
        // The app's id under a project the stranger manages is no way in either.
        `/b/${otherProject}/settings/api/apps/${appId}`,
      ]) {
        assert.equal((await stranger.get(page)).status, 404, page);
      }
      assert.equal((await client.get(`/b/${projectId}/settings/api/apps/not-an-app`)).status, 404);
    });

    test("refuses every developer form without the session's CSRF token", async () => {
      const { client: dev } = await organizer();
      const homeId = await newProject(dev);
      const { appId, path, token } = await addApp(dev, homeId);
      const { client: org } = await organizer();
      const partnerId = await newProject(org, "Partner Summit");
      await org.get(`/connect/${appId}`);
      const orgToken = org.csrfToken();
      await dev.get(path);
      const devToken = dev.csrfToken();
      const posts: [HttpClient, string, Record<string, string | string[]>][] = [
        [dev, `/b/${homeId}/settings/api/apps`, { name: "Forged", permissions: ["agenda:read"] }],
        [dev, path, { name: "Forged", permissions: ["attendees:read"] }],
        [dev, `${path}/token`, {}],
        [dev, `${path}/delete`, {}],
        [org, `/connect/${appId}`, { projectId: partnerId }],
      ];
      for (const [client, target, fields] of posts) {
        assert.equal((await client.post(target, { ...fields, _csrf: null })).status, 403, target);
        const crossed = client === dev ? orgToken : devToken;
        assert.equal(
          (await client.post(target, { ...fields, _csrf: crossed })).status,
          403,
          `${target} (other session)`,
        );
      }
      const [app] = await server.services.apps.listForProject({ kind: "system" }, homeId);
      assert.equal(app?.name, "Schedule Sync");
      assert.deepEqual(app?.permissions, ["agenda:read"]);
      assert.equal((await server.services.apps.listForProject({ kind: "system" }, homeId)).length, 1);
      assert.ok((await readsName(token, homeId)).data.project, "the token was not rotated");
      assert.deepEqual(await server.services.apps.listIntegrations({ kind: "system" }, partnerId), []);

      await connect(org, appId, partnerId);
      const revoke = `/b/${partnerId}/settings/integrations/${appId}/revoke`;
      await org.get(`/b/${partnerId}/settings/integrations`);
      assert.equal((await org.post(revoke, { _csrf: null })).status, 403);
      assert.equal((await org.post(revoke, { _csrf: devToken })).status, 403);
      assert.equal((await server.services.apps.listIntegrations({ kind: "system" }, partnerId)).length, 1);
      // The developer cannot revoke another organizer's link (nor see that project).
      assert.equal((await dev.post(revoke, {})).status, 404);
      assert.equal((await org.post(revoke, {})).status, 303);
      assert.deepEqual(await server.services.apps.listIntegrations({ kind: "system" }, partnerId), []);
    });

    test("shows an app name with markup as text on every page", async () => {
      const { client: dev } = await organizer();
      const homeId = await newProject(dev);
      const { response, appId, path } = await addApp(dev, homeId, { name: xss, description: xss });
      const { client: org } = await organizer();
      const partnerId = await newProject(org, "Partner Summit");
      await connect(org, appId, partnerId);
      const pages: [string, TestResponse][] = [
        ["token dialog", response],
        ["API tab", await dev.get(`/b/${homeId}/settings/api`)],
        ["details", await dev.get(path)],
        ["linked projects", await dev.get(`${path}/linked-projects`)],
        ["connect page", await org.get(`/connect/${appId}`)],
        ["integrations", await org.get(`/b/${partnerId}/settings/integrations`)],
      ];
      for (const [name, page] of pages) {
        assert.equal(page.status, 200, name);
        assert.ok(!page.body.includes("<img src=x"), `${name} has no live markup`);
        assert.ok(page.body.includes(escapedXss), `${name} shows the name as text`);
      }
    });
  });
}
