import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { testEngines } from "../helpers/engines.js";
import { addMember, createUser, testPassword, uniqueEmail } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { HttpClient, type TestResponse } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

const xss = "<img src=x onerror=alert(1)>";
const escapedXss = "&lt;img src=x onerror=alert(1)";

for (const engine of testEngines()) {
  describe(`developer pages over HTTP (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    /** A browser of a newly signed-up organizer (email verified unless told otherwise). */
    async function organizer(options: { verified?: boolean; name?: string } = {}) {
      const email = uniqueEmail("dev");
      const client = new HttpClient(server.url);
      await client.get("/signup");
      const signup = await client.post("/signup", {
        name: options.name ?? "Dana Developer",
        email,
        password: testPassword,
      });
      assert.equal(signup.status, 303, signup.body);
      const user = (await server.services.users.findByEmail(email)) ?? assert.fail("no user");
      if (options.verified !== false) await server.services.users.markEmailVerified(user.id);
      await client.get("/"); // shows (and so clears) the welcome message
      return { client, user };
    }

    /** Links the app to a project through its connect page, with the permissions it asks for. */
    /** Authorize on the connect page the organizer has open, with the permissions it offers. */
    function authorizeOpenPage(org: HttpClient, appId: string, projectId: string): Promise<TestResponse> {
      return org.post(`/connect/${appId}`, { projectId, permissions: org.formValue("permissions") ?? "" });
    }

    async function connect(org: HttpClient, appId: string, projectId: string): Promise<void> {
      await org.get(`/connect/${appId}`);
      assert.equal((await authorizeOpenPage(org, appId, projectId)).status, 303);
    }

    async function newProject(client: HttpClient, name = "Dev Days"): Promise<string> {
      await client.get("/projects/new");
      const created = await client.post("/projects", { name, timezone: "UTC" });
      const id = /^\/b\/([A-Za-z0-9]{4})$/.exec(created.headers.get("location") ?? "")?.[1];
      assert.ok(id, created.body);
      return id;
    }

    /** Adds an app on the API tab; the token is read from the dialog of the POST's answer. */
    async function addApp(
      client: HttpClient,
      projectId: string,
      fields: { name?: string; description?: string; permissions?: string[] } = {},
    ) {
      await client.get(`/b/${projectId}/settings/api`);
      const response = await client.post(`/b/${projectId}/settings/api/apps`, {
        name: fields.name ?? "Schedule Sync",
        description: fields.description ?? "",
        permissions: fields.permissions ?? ["agenda:read"],
      });
      assert.equal(response.status, 200, response.body);
      // The token dialog's field is a textarea (it wraps, so the whole token shows).
      const token = /id="new-token"[^>]*>\s*(evg_[A-Za-z0-9]+)\s*<\/textarea>/.exec(response.body);
      const appId = new RegExp(`action="/b/${projectId}/settings/api/apps/([^"/]+)"`).exec(
        response.body,
      )?.[1];
      assert.ok(token && appId, response.body);
      return {
        response,
        token: token[1] as string,
        appId,
        path: `/b/${projectId}/settings/api/apps/${appId}`,
      };
    }

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

    const projectName = (id: string) => `{ project(id: "${id}") { name } }`;
    const attendeeCount = (id: string) => `{ project(id: "${id}") { attendees { totalCount } } }`;
    const readsName = async (token: string, id: string) =>
      (await gql(server.url, projectName(id), { token })).body;

    function assertNoToken(page: TestResponse, token: string, where: string, showsLast4: boolean) {
      assert.equal(page.status, 200, where);
      assert.ok(!page.body.includes(token), `${where} must not show the token`);
      assert.equal(
        page.body.includes(`evg_…${token.slice(-4)}`),
        showsLast4,
        `${where}: the last 4 characters`,
      );
    }

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

    test("connects a project, shows update requested after widening, and re-approves", async () => {
      const { client: dev } = await organizer();
      const homeId = await newProject(dev);
      const { token, appId, path } = await addApp(dev, homeId, { permissions: ["agenda:read"] });
      const { client: org, user: orgUser } = await organizer({ name: "Olga Organizer" });
      const partnerId = await newProject(org, "Partner Summit");

      const consent = await org.get(`/connect/${appId}`);
      assert.equal(consent.status, 200);
      assert.match(consent.body, /Schedule Sync/);
      assert.match(
        consent.body,
        new RegExp(`<option value="${partnerId}">Partner Summit \\(${partnerId}\\)</option>`),
      );
      const noProject = await org.post(`/connect/${appId}`, { projectId: "" });
      assert.equal(noProject.status, 400);
      assert.match(noProject.body, /is required|must not be empty|Please correct/i);
      const authorized = await authorizeOpenPage(org, appId, partnerId);
      assert.equal(authorized.status, 303);
      assert.equal(authorized.headers.get("location"), `/b/${partnerId}/settings/integrations`);
      const tab = await org.get(`/b/${partnerId}/settings/integrations`);
      assert.match(tab.body, /“Schedule Sync” is connected to Partner Summit\./);
      assert.doesNotMatch(tab.body, /update requested/);
      assert.deepEqual((await readsName(token, partnerId)).data, { project: { name: "Partner Summit" } });

      const linked = await dev.get(`${path}/linked-projects`);
      assert.match(linked.body, /Partner Summit/);
      assert.match(linked.body, /Olga Organizer/);
      assert.ok(linked.body.includes(orgUser.email));

      await dev.get(path);
      const widened = await dev.post(path, {
        name: "Schedule Sync",
        description: "",
        permissions: ["agenda:read", "attendees:read"],
      });
      assert.equal(widened.status, 303);
      assert.match((await dev.get(path)).body, /Changes saved\./);
      // The home project gets the new permission at once; the linked one waits for its organizer.
      assert.equal(
        (await gql(server.url, attendeeCount(homeId), { token })).body.data.project.attendees.totalCount,
        0,
      );
      const refused = await gql(server.url, attendeeCount(partnerId), { token });
      assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(refused.body.errors[0].extensions.requiredPermission, "attendees:read");

      const pending = await org.get(`/b/${partnerId}/settings/integrations`);
      assert.match(pending.body, /update requested/);
      assert.match(pending.body, /now also asks for/);
      assert.match(pending.body, /Read attendees/);
      const review = `/connect/${appId}?project=${partnerId}`;
      assert.ok(pending.body.includes(`href="${review}"`), "links to the review");
      const reviewPage = await org.get(review);
      assert.match(reviewPage.body, new RegExp(`<option value="${partnerId}" selected`));
      assert.match(reviewPage.body, /Read attendees/);
      assert.equal((await authorizeOpenPage(org, appId, partnerId)).status, 303);
      const approved = await gql(server.url, attendeeCount(partnerId), { token });
      assert.deepEqual(approved.body.data, { project: { attendees: { totalCount: 0 } } });
      assert.doesNotMatch((await org.get(`/b/${partnerId}/settings/integrations`)).body, /update requested/);
    });

    test("an unverified developer's app asks to verify and cannot be connected by others", async () => {
      const { client: dev, user } = await organizer({ verified: false });
      // The dashboard makes no project for an unverified account; the operator's CLI does.
      await dev.get("/projects/new");
      const refused = await dev.post("/projects", { name: "Script Days", timezone: "UTC" });
      assert.equal(refused.status, 403);
      assert.match(refused.body, /Confirm your email address before creating a project/);
      const homeId = (await server.services.projects.create(user.id, { name: "Dev Days", timezone: "UTC" }))
        .id;
      const { appId, path } = await addApp(dev, homeId);
      const linked = await dev.get(`${path}/linked-projects`);
      assert.match(linked.body, /This project is unverified/);
      assert.match(linked.body, /Verify your email address so other organizers can connect this app/);
      assert.match(linked.body, /Resend verification email/);
      // The developer previews the link and sees why others cannot connect yet.
      assert.match((await dev.get(`/connect/${appId}`)).body, /This is your app/);

      const { client: org } = await organizer();
      const partnerId = await newProject(org, "Partner Summit");
      const consent = await org.get(`/connect/${appId}`);
      assert.equal(consent.status, 200);
      assert.match(
        consent.body,
        /This app cannot be connected yet: its developer has not verified their email address/,
      );
      assert.doesNotMatch(consent.body, />Authorize</);
      const forced = await authorizeOpenPage(org, appId, partnerId);
      assert.equal(forced.status, 403);
      assert.match(forced.body, /This app cannot be connected yet/);
      assert.deepEqual(await server.services.apps.listIntegrations({ kind: "system" }, partnerId), []);

      await server.services.users.markEmailVerified(user.id);
      assert.doesNotMatch((await dev.get(`${path}/linked-projects`)).body, /This project is unverified/);
      assert.match((await org.get(`/connect/${appId}`)).body, />Authorize</);
      assert.equal((await authorizeOpenPage(org, appId, partnerId)).status, 303);
    });

    test("sends a logged-out organizer to log in or sign up and back to the connect page", async () => {
      const { client: dev } = await organizer();
      const { appId } = await addApp(dev, await newProject(dev));
      const here = `/connect/${appId}`;
      const visitor = new HttpClient(server.url);
      const page = await visitor.get(here);
      assert.equal(page.status, 200);
      assert.match(page.body, /Schedule Sync/);
      assert.match(page.body, /Read all sessions, speakers, tracks and rooms, including drafts\./);
      assert.ok(page.body.includes(`href="/login?next=${encodeURIComponent(here)}"`));
      assert.ok(page.body.includes(`href="/signup?next=${encodeURIComponent(here)}"`));
      assert.doesNotMatch(page.body, />Authorize</);
      const blind = await visitor.post(here, { _csrf: "guessed", projectId: "ABCD" });
      assert.equal(blind.status, 403, "a post without a session has no valid CSRF token");

      const signupForm = await visitor.get(`/signup?next=${encodeURIComponent(here)}`);
      assert.ok(signupForm.body.includes(`action="/signup?next=${encodeURIComponent(here)}"`));
      assert.ok(signupForm.body.includes(`href="/login?next=${encodeURIComponent(here)}"`));
      const email = uniqueEmail("newcomer");
      const signedUp = await visitor.post(`/signup?next=${encodeURIComponent(here)}`, {
        name: "New Organizer",
        email,
        password: testPassword,
      });
      assert.equal(signedUp.status, 303);
      assert.equal(signedUp.headers.get("location"), here);
      assert.match((await visitor.get(here)).body, /No project to connect/);

      const returning = new HttpClient(server.url);
      await returning.get(`/login?next=${encodeURIComponent(here)}`);
      const login = await returning.post(`/login?next=${encodeURIComponent(here)}`, {
        email,
        password: testPassword,
      });
      assert.equal(login.headers.get("location"), here);
      const elsewhere = new HttpClient(server.url);
      await elsewhere.get("/signup");
      const offsite = await elsewhere.post(`/signup?next=${encodeURIComponent("//evil.example/x")}`, {
        name: "Someone",
        email: uniqueEmail("offsite"),
        password: testPassword,
      });
      assert.equal(offsite.headers.get("location"), "/");
    });

    test("forbids framing the connect page and answers an unknown app with 404", async () => {
      const { client: dev } = await organizer();
      const { appId } = await addApp(dev, await newProject(dev));
      for (const browser of [new HttpClient(server.url), dev]) {
        const response = await browser.get(`/connect/${appId}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("x-frame-options"), "DENY");
        assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
        assert.doesNotMatch(response.body, /<script>|<script [^>]*>[^<]/, "no inline script");
      }
      assert.equal((await dev.get("/connect/00000000-0000-0000-0000-000000000000")).status, 404);
      assert.equal((await dev.get("/connect/%27%20or%201%3D1")).status, 404);
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
