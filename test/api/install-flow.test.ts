import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { addMember, createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { Mailbox, type ReceivedMail } from "../helpers/mailbox.js";
import { createOrganizer } from "../helpers/organizer.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const redirect = "https://app.example.test/eventgraph/callback?source=connect";

function decodeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The newest mail to `address` whose subject matches (the mails are sent in the background). */
async function mailMatching(mailbox: Mailbox, address: string, subject: RegExp): Promise<ReceivedMail> {
  for (let i = 0; i < 100; i++) {
    const found = mailbox
      .to(address)
      .filter((m) => subject.test(m.subject))
      .pop();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no mail to ${address} with subject ${subject}`);
}

for (const engine of testEngines()) {
  describe(`install flow: redirect with state, who built the app, approval of added permissions (${engine.name})`, () => {
    let server: TestServer;
    let mailbox: Mailbox;
    let databaseUrl: string;
    before(async () => {
      mailbox = await new Mailbox().start();
      databaseUrl = engine.newDatabaseUrl();
      server = await startTestServer(engine, { SMTP_URL: mailbox.url, DATABASE_URL: databaseUrl });
    });
    after(async () => {
      await server.close();
      await mailbox.close();
    });

    const loggedInAs = (email: string, next = "") => logIn(server.url, email, { next });

    async function developerWithApp(urls: { redirectUrl?: string | null } = { redirectUrl: redirect }) {
      const developer = await createUser(server.services, {
        name: "Dana Developer",
        email: `dana-${Date.now()}-${Math.random().toString(36).slice(2)}@Tools.Example.test`,
      });
      const { project: home } = await createProject(server.services, { ownerId: developer.id });
      const { app, token } = await server.services.apps.createApp(userActor(developer.id), {
        projectId: home.id,
        name: "Badge Printer",
        permissions: ["agenda:read"],
        websiteUrl: "https://badges.example.test/",
        privacyPolicyUrl: "https://badges.example.test/privacy",
        ...urls,
      });
      return { developer, home, app, token };
    }

    test("refuses URLs that are not https (http only for localhost), carry a password or a fragment", async () => {
      const { developer, app } = await developerWithApp();
      const actor = userActor(developer.id);
      const refused: [string, string][] = [
        ["redirectUrl", "http://app.example.test/callback"],
        ["redirectUrl", "javascript:alert(1)"],
        ["redirectUrl", "https://user:secret@app.example.test/"],
        ["redirectUrl", "https://app.example.test/callback#token"],
        ["websiteUrl", "ftp://files.example.test/"],
        ["privacyPolicyUrl", "not a url"],
        ["websiteUrl", `https://example.test/${"a".repeat(2000)}`],
        // Shown as link text on the consent page: no bidi embedding, override or isolate.
        ["websiteUrl", "https://example.test/\u202Emoc.elgoog"],
        ["privacyPolicyUrl", "https://example.test/\u2066privacy\u2069"],
        ["websiteUrl", "https://example.test/\u202Aa"],
      ];
      for (const [field, value] of refused) {
        await assert.rejects(
          server.services.apps.updateApp(actor, { id: app.id, [field]: value }),
          (error: { code?: string; details?: { fieldErrors?: { field: string[] }[] } }) =>
            error.code === "BAD_USER_INPUT" && error.details?.fieldErrors?.[0]?.field[0] === field,
          `${field}=${value}`,
        );
      }
      for (const local of ["http://localhost:3000/cb", "http://127.0.0.1:8080/cb", "http://[::1]:9/cb"]) {
        const updated = await server.services.apps.updateApp(actor, { id: app.id, redirectUrl: local });
        assert.equal(updated.redirectUrl, local);
      }
      // Blank clears.
      const cleared = await server.services.apps.updateApp(actor, { id: app.id, redirectUrl: "  " });
      assert.equal(cleared.redirectUrl, null);

      // The dashboard form shows the error next to the field and keeps the app as it was.
      const client = await loggedInAs(developer.email);
      const path = `/b/${app.projectId}/settings/api/apps/${app.id}`;
      await client.get(path);
      const saved = await client.post(path, {
        name: "Badge Printer",
        permissions: ["agenda:read"],
        redirectUrl: "http://app.example.test/callback",
      });
      assert.equal(saved.status, 400);
      assert.match(saved.body, /Redirect URL must be an https:\/\/ URL/);
      assert.equal((await server.services.apps.getApp(actor, app.id)).redirectUrl, null);
    });

    test("an organizer who is not logged in keeps the state through log in and lands on the redirect URL", async () => {
      const { app } = await developerWithApp();
      const { user: organizer, project } = await createOrganizer(server.services);
      const state = `xyz-${Date.now()}"<b>&amp;'`;

      const anonymous = new HttpClient(server.url);
      const page = await anonymous.get(`/connect/${app.id}?state=${encodeURIComponent(state)}`);
      assert.equal(page.status, 200);
      const next = `/connect/${app.id}?state=${encodeURIComponent(state)}`;
      assert.ok(page.body.includes(`/login?next=${encodeURIComponent(next)}`), "log in keeps the state");
      assert.ok(!page.body.includes("<b>&amp;"), "the state is never echoed unescaped");

      const client = await loggedInAs(organizer.email, `?next=${encodeURIComponent(next)}`);
      const back = await client.get(`/login?next=${encodeURIComponent(next)}`);
      assert.equal(back.headers.get("location"), next);
      const consent = await client.get(next);
      // The form posts to the app's own origin after Authorize: the policy must allow it.
      assert.match(
        consent.headers.get("content-security-policy") ?? "",
        /form-action 'self' https:\/\/app\.example\.test;/,
      );
      const hidden = /name="state" value="([^"]*)"/.exec(consent.body)?.[1] ?? "";
      assert.equal(decodeHtml(hidden), state, "the hidden field carries the state, escaped");
      const cancel =
        /<a class="button button-secondary" href="([^"]+)">\s*Cancel/.exec(consent.body)?.[1] ?? "";
      const cancelUrl = new URL(cancel.replace(/&amp;/g, "&"));
      assert.equal(cancelUrl.origin + cancelUrl.pathname, "https://app.example.test/eventgraph/callback");
      assert.equal(cancelUrl.searchParams.get("error"), "access_denied");
      assert.equal(cancelUrl.searchParams.get("state"), state);
      assert.equal(cancelUrl.searchParams.get("source"), "connect", "the redirect URL's own query is kept");

      const authorized = await client.post(`/connect/${app.id}`, {
        projectId: project.id,
        permissions: client.formValue("permissions") ?? "",
        state,
      });
      assert.equal(authorized.status, 303, authorized.body);
      const location = new URL(authorized.headers.get("location") ?? "");
      assert.equal(location.origin + location.pathname, "https://app.example.test/eventgraph/callback");
      assert.equal(location.searchParams.get("project_id"), project.id);
      assert.equal(location.searchParams.get("state"), state);
      assert.equal(location.searchParams.get("source"), "connect");
      const [link] = await server.services.apps.listIntegrations({ kind: "system" }, project.id);
      assert.deepEqual(link?.grantedPermissions, ["agenda:read"]);
    });

    test("refuses an over-long or odd state with a 400 and links nothing", async () => {
      const { app } = await developerWithApp();
      const { user: organizer, project } = await createOrganizer(server.services);
      const client = await loggedInAs(organizer.email);
      for (const state of ["a".repeat(501), "has space", "tab\there", "é"]) {
        const page = await client.get(`/connect/${app.id}?state=${encodeURIComponent(state)}`);
        assert.equal(page.status, 400, state);
      }
      await client.get(`/connect/${app.id}`);
      const posted = await client.post(`/connect/${app.id}`, {
        projectId: project.id,
        permissions: "agenda:read",
        state: "a".repeat(501),
      });
      assert.equal(posted.status, 400);
      assert.deepEqual(await server.services.apps.listIntegrations({ kind: "system" }, project.id), []);
      // Exactly 500 characters is fine.
      assert.equal((await client.get(`/connect/${app.id}?state=${"b".repeat(500)}`)).status, 200);
    });

    test("without a redirect URL, Authorize still returns to Integrations and a state is ignored", async () => {
      const { app } = await developerWithApp({ redirectUrl: null });
      const { user: organizer, project } = await createOrganizer(server.services);
      const client = await loggedInAs(organizer.email);
      await client.get(`/connect/${app.id}?state=abc`);
      const authorized = await client.post(`/connect/${app.id}`, {
        projectId: project.id,
        permissions: client.formValue("permissions") ?? "",
        state: "abc",
      });
      assert.equal(authorized.headers.get("location"), `/b/${project.id}/settings/integrations`);
    });

    test("the consent page names the developer with their verified email domain, and the app's links", async () => {
      const { app } = await developerWithApp();
      const page = await new HttpClient(server.url).get(`/connect/${app.id}`);
      assert.match(page.body, /Dana Developer/);
      assert.match(page.body, /email at <strong>tools\.example\.test<\/strong>/);
      assert.doesNotMatch(page.body, /dana-\d+/i, "the developer's address itself is not shown");
      assert.match(
        page.body,
        /href="https:\/\/badges\.example\.test\/privacy" rel="noopener noreferrer nofollow"/,
      );
      assert.match(page.body, /href="https:\/\/badges\.example\.test\/"/);

      const unverified = await createUser(server.services, { name: "Uma Unverified", verified: false });
      const { project: home } = await createProject(server.services, { ownerId: unverified.id });
      const { app: other } = await server.services.apps.createApp(userActor(unverified.id), {
        projectId: home.id,
        name: "Fresh App",
        permissions: [],
      });
      const second = await new HttpClient(server.url).get(`/connect/${other.id}`);
      assert.match(second.body, /Uma Unverified/);
      assert.match(second.body, /Email address not verified/);
      assert.match(second.body, /Privacy policy<\/dt><dd class="muted">None given/);
    });

    test("a widened app emails the owners and admins of linked projects once each, badges Integrations and shows what waits", async () => {
      const { developer, app } = await developerWithApp();
      const owner = await createUser(server.services, { name: "Olga Owner" });
      const admin = await createUser(server.services, { name: "Adam Admin" });
      const member = await createUser(server.services, { name: "Mia Member" });
      const { project } = await createProject(server.services, {
        ownerId: owner.id,
        input: { name: "Linked Fest" },
      });
      const { project: second } = await createProject(server.services, {
        ownerId: owner.id,
        input: { name: "Second Fest" },
      });
      await addMember(server.services, userActor(owner.id), project.id, admin.email, "ADMIN");
      await addMember(server.services, userActor(owner.id), project.id, member.email, "MEMBER");
      await server.services.apps.authorize(userActor(owner.id), { appId: app.id, projectId: project.id });
      await server.services.apps.authorize(userActor(owner.id), { appId: app.id, projectId: second.id });
      const before = mailbox.received.length;

      // Narrowing or renaming mails nobody.
      await server.services.apps.updateApp(userActor(developer.id), { id: app.id, name: "Badge Printer 2" });
      await server.services.apps.updateApp(userActor(developer.id), {
        id: app.id,
        permissions: ["agenda:read", "attendees:read"],
      });
      const toOwner = await mailMatching(mailbox, owner.email, /asks for more access/);
      const toAdmin = await mailMatching(mailbox, admin.email, /asks for more access/);
      assert.match(toOwner.subject, /Badge Printer 2 asks for more access/);
      assert.match(toOwner.text, /Read attendees/);
      // One email for both of the owner's projects.
      assert.match(toOwner.text, /Linked Fest/);
      assert.match(toOwner.text, /Second Fest/);
      assert.match(toAdmin.text, new RegExp(`/b/${project.id}/settings/integrations`));
      assert.doesNotMatch(toAdmin.text, /Second Fest/, "the admin is not a member of the second project");
      const asked = (address: string) => mailbox.to(address).filter((m) => /asks for more/.test(m.subject));
      assert.equal(asked(member.email).length, 0, "members cannot approve, so they are not asked");
      assert.equal(asked(owner.email).length, 1);
      assert.equal(mailbox.received.length - before, 2);

      // The Integrations tab and the Settings link carry the count for managers.
      const ownerClient = await loggedInAs(owner.email);
      const integrations = await ownerClient.get(`/b/${project.id}/settings/integrations`);
      assert.match(
        integrations.body,
        /class="count-badge"[^>]*>1<span class="visually-hidden"> waiting for approval/,
      );
      assert.match(integrations.body, /update requested/);
      const memberClient = await loggedInAs(member.email);
      assert.doesNotMatch(
        (await memberClient.get(`/b/${project.id}/settings/integrations`)).body,
        /count-badge"/,
      );

      // The developer sees which links still wait, and for what.
      const devClient = await loggedInAs(developer.email);
      const linked = await devClient.get(`/b/${app.projectId}/settings/api/apps/${app.id}/linked-projects`);
      assert.equal((linked.body.match(/waiting for approval/g) ?? []).length, 2);
      const links = await server.services.apps.listLinksForApp(userActor(developer.id), app.id);
      assert.deepEqual(
        links.map((l) => l.pendingPermissions),
        [["attendees:read"], ["attendees:read"]],
      );

      // Approving from Integrations' review link returns to Integrations, not to the app, and clears the
      // badge for that project.
      const adminClient = await loggedInAs(admin.email);
      await adminClient.get(`/connect/${app.id}?project=${project.id}`);
      const approved = await adminClient.post(`/connect/${app.id}`, {
        projectId: project.id,
        permissions: adminClient.formValue("permissions") ?? "",
        review: adminClient.formValue("review") ?? "",
      });
      assert.equal(approved.headers.get("location"), `/b/${project.id}/settings/integrations`);
      assert.equal(await server.services.apps.pendingApprovalCount(project.id), 0);
      assert.equal(await server.services.apps.pendingApprovalCount(second.id), 1);
    });

    test("a developer toggling a permission cannot flood organizers: at most 3 mails per app and person a day", async () => {
      const { developer, app } = await developerWithApp();
      const { user: owner, project } = await createOrganizer(server.services);
      await server.services.apps.authorize(userActor(owner.id), { appId: app.id, projectId: project.id });
      for (let i = 0; i < 6; i++) {
        await server.services.apps.updateApp(userActor(developer.id), {
          id: app.id,
          permissions: ["agenda:read"],
        });
        await server.services.apps.updateApp(userActor(developer.id), {
          id: app.id,
          permissions: ["agenda:read", "tickets:read"],
        });
      }
      await mailbox.latest(owner.email);
      // Let the background sends finish before counting.
      for (let i = 0; i < 20 && mailbox.to(owner.email).length < 3; i++)
        await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(mailbox.to(owner.email).length, 3);
    });

    test("the app reads its own URLs as the viewer; the CLI sets and clears them", async () => {
      const { app, token } = await developerWithApp();
      const query = "{ viewer { name redirectUrl websiteUrl privacyPolicyUrl } }";
      const answer = await gql(server.url, query, { token });
      assert.deepEqual(answer.body.data.viewer, {
        name: "Badge Printer",
        redirectUrl: redirect,
        websiteUrl: "https://badges.example.test/",
        privacyPolicyUrl: "https://badges.example.test/privacy",
      });

      const env = { DATABASE_URL: databaseUrl, BASE_URL: server.url };
      const bad = await runCliInProcess(
        ["apps", "update", "--app", app.id, "--redirect-url", "http://evil.example.test/"],
        env,
      );
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /redirectUrl/);
      const updated = await runCliInProcess(
        [
          "apps",
          "update",
          "--app",
          app.id,
          "--redirect-url",
          "https://new.example.test/cb",
          "--privacy-url",
          "",
          "--json",
        ],
        env,
      );
      assert.equal(updated.code, 0, updated.stderr);
      const printed = JSON.parse(updated.stdout);
      assert.equal(printed.redirectUrl, "https://new.example.test/cb");
      assert.equal(printed.privacyPolicyUrl, null);
      assert.equal(printed.websiteUrl, "https://badges.example.test/", "flags not given stay as they were");
      const again = await gql(server.url, query, { token });
      assert.equal(again.body.data.viewer.redirectUrl, "https://new.example.test/cb");
    });
  });
}
