import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createProject, createUser, userActor } from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

for (const engine of testEngines()) {
  describe(`consent grants what was shown; return paths stay on the site (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const loggedInAs = (email: string, next = "") => logIn(server.url, email, { next });

    test("an app widened between page load and Authorize does not get the new permission", async () => {
      const developer = await createUser(server.services);
      const { project: home } = await createProject(server.services, { ownerId: developer.id });
      const { app } = await server.services.apps.createApp(userActor(developer.id), {
        projectId: home.id,
        name: "Schedule Sync",
        permissions: ["agenda:read"],
      });
      const { user: organizer, project } = await createOrganizer(server.services);
      const client = await loggedInAs(organizer.email);
      const page = await client.get(`/connect/${app.id}`);
      assert.match(page.body, /Read the agenda/);
      assert.doesNotMatch(page.body, /Manage registrations/);
      const shown = client.formValue("permissions") ?? "";
      assert.equal(shown, "agenda:read");

      // The developer widens the app while the organizer reads the page.
      await server.services.apps.updateApp(userActor(developer.id), {
        id: app.id,
        permissions: ["agenda:read", "attendees:write"],
      });
      const click = await client.post(`/connect/${app.id}`, { projectId: project.id, permissions: shown });
      assert.equal(click.status, 409);
      assert.match(click.body, /requested permissions changed after the page was loaded/);
      // Shown again, now with what the app asks for.
      assert.match(click.body, /Manage registrations/);
      assert.deepEqual(await server.services.apps.listIntegrations({ kind: "system" }, project.id), []);

      // A forged form without the field grants nothing either.
      await client.get(`/connect/${app.id}`);
      assert.equal((await client.post(`/connect/${app.id}`, { projectId: project.id })).status, 409);

      // Authorizing what is now shown grants exactly that.
      await client.get(`/connect/${app.id}`);
      const approved = await client.post(`/connect/${app.id}`, {
        projectId: project.id,
        permissions: client.formValue("permissions") ?? "",
      });
      assert.equal(approved.status, 303);
      const [link] = await server.services.apps.listIntegrations({ kind: "system" }, project.id);
      assert.deepEqual(link?.grantedPermissions, ["agenda:read", "attendees:write"]);
    });

    test("follows only same-origin paths after login, and never answers 500 for an odd next", async () => {
      const user = await createUser(server.services);
      const offSite = [
        "/%09/evil.example",
        "//evil.example",
        "/\\evil.example",
        "https://evil.example/",
        "/%0a/evil.example",
      ];
      for (const next of offSite) {
        // Logging in with the parameter, and visiting the login page already logged in.
        const client = await loggedInAs(user.email, `?next=${encodeURIComponent(decodeURIComponent(next))}`);
        const again = await client.get(`/login?next=${next}`);
        assert.equal(again.status, 303, next);
        assert.equal(again.headers.get("location"), "/", next);
        const signup = await client.get(`/signup?next=${next}`);
        assert.equal(signup.headers.get("location"), "/", next);
      }
      const client = await loggedInAs(user.email);
      for (const next of ["%C3%A9", "/%C3%A9t%C3%A9", "/%E2%80%AE", "%FF"]) {
        const answer = await client.get(`/login?next=${next}`);
        assert.equal(answer.status, 303, next);
        assert.equal(answer.headers.get("location"), "/", next);
      }
      const kept = await client.get(`/login?next=${encodeURIComponent("/projects/new?x=1")}`);
      assert.equal(kept.headers.get("location"), "/projects/new?x=1");
    });
  });
}
