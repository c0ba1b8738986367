import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { attendeeCount, developerSteps } from "../helpers/developer-steps.js";
import { testEngines } from "../helpers/engines.js";
import { testPassword, uniqueEmail } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { HttpClient } from "../helpers/http-client.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The connect page: linking an app to a project, re-approving a widened app, unverified developers,
// logged-out organizers, framing.

for (const engine of testEngines()) {
  describe(`connecting apps to projects over HTTP (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    const { organizer, authorizeOpenPage, newProject, addApp, readsName } = developerSteps(server);

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
  });
}
