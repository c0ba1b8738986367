import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Permission } from "../../src/modules/access/permissions.js";
import { auditChecks } from "../helpers/audit-log.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The audit log of what organizers do in the dashboard: one entry per action, with what changed.

for (const engine of testEngines()) {
  describe(`audit log: every dashboard action leaves one entry (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    const loggedInAs = (email: string) => logIn(server.url, email);
    const { log, audited, ok } = auditChecks(server);

    test("organizer actions in the dashboard", async () => {
      const owner = await createUser(server.services, { name: "Olga Owner" });
      const invitee = await createUser(server.services, { name: "Ivo Invitee" });
      const client = await loggedInAs(owner.email);
      await client.get("/projects/new");
      const created = await ok(client.post("/projects", { name: "Audit Con", timezone: "UTC" }));
      const projectId = /\/b\/([A-Za-z0-9]{4})/.exec(created.headers.get("location") ?? "")?.[1] ?? "";
      const first = await log(projectId);
      assert.deepEqual(
        first.map((e) => [e.action, e.actor.label, e.via]),
        [["project.created", owner.email, "dashboard"]],
      );
      const settings = `/b/${projectId}/settings`;
      const members = `${settings}/members`;

      await client.get(settings);
      await audited(
        projectId,
        { action: "project.updated", actorKind: "user", via: "dashboard", changes: { name: "Audit Conf" } },
        () => ok(client.post(settings, { name: "Audit Conf", timezone: "UTC" })),
      );
      await client.get(settings);
      await audited(
        projectId,
        { action: "project.updated", actorKind: "user", via: "dashboard", changes: { status: "PUBLISHED" } },
        () => ok(client.post(`${settings}/status`, { status: "PUBLISHED" })),
      );

      await client.get(members);
      const invitation = await audited(
        projectId,
        {
          action: "invitation.created",
          actorKind: "user",
          via: "dashboard",
          changes: { email: invitee.email, role: "ADMIN" },
        },
        () => ok(client.post(members, { email: invitee.email, role: "ADMIN" })),
      );
      await client.get(members);
      await audited(projectId, { action: "invitation.revoked", actorKind: "user", via: "dashboard" }, () =>
        ok(client.post(`${members}/invitations/${invitation.object.id}/revoke`, {})),
      );
      // Accepting is the invitee's own action, from their browser.
      const { link } = await server.services.invitations.invite(userActor(owner.id), projectId, {
        email: invitee.email,
        role: "ADMIN",
      });
      const inviteeClient = await loggedInAs(invitee.email);
      const invitePath = new URL(link).pathname + new URL(link).search;
      await inviteeClient.get(invitePath);
      const joined = await audited(
        projectId,
        { action: "member.added", actorKind: "user", via: "dashboard", changes: { role: "ADMIN" } },
        () => ok(inviteeClient.post("/invite", { token: new URL(link).searchParams.get("token") ?? "" })),
      );
      assert.equal(joined.actor.label, invitee.email);
      await client.get(members);
      await audited(
        projectId,
        { action: "member.role_changed", actorKind: "user", via: "dashboard", changes: { role: "MEMBER" } },
        () => ok(client.post(`${members}/${invitee.id}/role`, { role: "MEMBER" })),
      );
      await client.get(members);
      await audited(projectId, { action: "member.removed", actorKind: "user", via: "dashboard" }, () =>
        ok(client.post(`${members}/${invitee.id}/remove`, {})),
      );

      // Apps: create, edit, rotate the token, delete. The token never appears in the log.
      await client.get(`${settings}/api`);
      let appId = "";
      const appCreated = await audited(
        projectId,
        {
          action: "app.created",
          actorKind: "user",
          via: "dashboard",
          changes: { name: "Badge printer", permissions: "attendees:read" },
        },
        async () => {
          const page = await ok(
            client.post(`${settings}/api/apps`, { name: "Badge printer", permissions: "attendees:read" }),
          );
          assert.match(page.body, /evg_/, "the token is shown once");
        },
      );
      appId = appCreated.object.id;
      const appPath = `${settings}/api/apps/${appId}`;
      await client.get(appPath);
      await audited(
        projectId,
        {
          action: "app.updated",
          actorKind: "user",
          via: "dashboard",
          changes: { name: "Badges", permissions: "attendees:read checkins:write" },
        },
        () =>
          ok(
            client.post(appPath, {
              name: "Badges",
              description: "",
              permissions: ["attendees:read", "checkins:write"],
            }),
          ),
      );
      await client.get(appPath);
      await audited(projectId, { action: "app.token_rotated", actorKind: "user", via: "dashboard" }, () =>
        ok(client.post(`${appPath}/token`, {})),
      );
      await client.get(appPath);
      await audited(projectId, { action: "app.deleted", actorKind: "user", via: "dashboard" }, () =>
        ok(client.post(`${appPath}/delete`, {})),
      );

      // Connecting another project's app, then revoking it, from this project's side.
      const { project: home } = await createProject(server.services, { ownerId: owner.id });
      const { app: foreign } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: home.id,
        name: "Schedule Sync",
        permissions: ["agenda:read"],
      });
      await client.get(`/connect/${foreign.id}`);
      await audited(
        projectId,
        {
          action: "app.link.created",
          actorKind: "user",
          via: "dashboard",
          changes: { app: "Schedule Sync", permissions: "agenda:read" },
        },
        () => ok(client.post(`/connect/${foreign.id}`, { projectId, permissions: "agenda:read" })),
      );
      await client.get(`${settings}/integrations`);
      await audited(projectId, { action: "app.link.revoked", actorKind: "user", via: "dashboard" }, () =>
        ok(client.post(`${settings}/integrations/${foreign.id}/revoke`, {})),
      );

      // A project data write from a dashboard form.
      await client.get(`/b/${projectId}/agenda`);
      await audited(
        projectId,
        { action: "track.created", actorKind: "user", via: "dashboard", changes: { name: "Main track" } },
        () => ok(client.post(`/b/${projectId}/agenda/tracks`, { name: "Main track" })),
      );
      await client.get(`/b/${projectId}/tickets`);
      await audited(
        projectId,
        {
          action: "ticket_type.created",
          actorKind: "user",
          via: "dashboard",
          changes: { name: "Early bird", priceMinor: "4900" },
        },
        () =>
          ok(
            client.post(`/b/${projectId}/tickets`, {
              name: "Early bird",
              price: "49.00",
              currency: "EUR",
              quantity: "10",
            }),
          ),
      );
    });

    test("an update records only the fields that moved, each as before → after; the page reads a price as money", async () => {
      const owner = await createUser(server.services, { name: "Pia Price" });
      const client = await loggedInAs(owner.email);
      await client.get("/projects/new");
      const created = await ok(client.post("/projects", { name: "Price Con", timezone: "UTC" }));
      const projectId = /\/b\/([A-Za-z0-9]{4})/.exec(created.headers.get("location") ?? "")?.[1] ?? "";
      const form = { name: "Standard", description: "", price: "99.00", currency: "EUR", quantity: "10" };
      await client.get(`/b/${projectId}/tickets`);
      const ticketType = await audited(
        projectId,
        {
          action: "ticket_type.created",
          actorKind: "user",
          via: "dashboard",
          changes: { priceMinor: "9900" },
        },
        () => ok(client.post(`/b/${projectId}/tickets`, form)),
      );
      const edit = `/b/${projectId}/tickets/${ticketType.object.id}`;
      await client.get(edit);
      // The edit form sends every field again; only the price moved.
      const updated = await audited(
        projectId,
        { action: "ticket_type.updated", actorKind: "user", via: "dashboard" },
        () => ok(client.post(edit, { ...form, price: "9900.00" })),
      );
      assert.deepEqual(updated.changes, [
        { field: "priceMinor", before: "9900", value: "990000", currency: "EUR" },
      ]);
      const page = await client.get(`/b/${projectId}/settings/audit`);
      assert.equal(page.status, 200);
      assert.match(page.body, /<del>€99\.00<\/del> → <ins>€9,900\.00<\/ins>/);
      const changesSeenBy = async (permissions: Permission[], name: string) => {
        const { token } = await server.services.apps.createApp(userActor(owner.id), {
          projectId,
          name,
          permissions,
        });
        const api = await gql(
          server.url,
          `query($id: ID!) { project(id: $id) { auditLog(first: 1, action: "ticket_type.updated") { edges { node { changes { field value previousValue } } } } } }`,
          { token, variables: { id: projectId } },
        );
        assert.equal(api.body.errors, undefined, JSON.stringify(api.body.errors));
        return api.body.data.project.auditLog.edges[0].node.changes;
      };
      assert.deepEqual(await changesSeenBy(["audit:read", "tickets:read"], "Auditor"), [
        { field: "priceMinor", value: "990000", previousValue: "9900" },
      ]);
      // The log never widens a grant: without tickets:read, neither value, before nor after.
      assert.deepEqual(await changesSeenBy(["audit:read"], "Narrow auditor"), [
        { field: "priceMinor", value: null, previousValue: null },
      ]);
    });
  });
}
