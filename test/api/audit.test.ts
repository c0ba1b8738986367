import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import type { AuditEntry } from "../../src/modules/audit/audit.visibility.js";
import { runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import type { TestResponse } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

/** What one audited action must leave in the log. */
interface Expected {
  action: string;
  actorKind: AuditEntry["actor"]["kind"];
  via: "dashboard" | "api" | "cli";
  /** Field → new value (as the log shows it); only the named fields are compared. */
  changes?: Record<string, string | null>;
  /** The entry carries an app link id. */
  link?: boolean;
}

for (const engine of testEngines()) {
  describe(`audit log: every action leaves one entry (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const loggedInAs = (email: string) => logIn(server.url, email);

    async function log(projectId: string): Promise<AuditEntry[]> {
      return (await server.services.audit.list(systemActor, projectId, {}, { first: 100 })).items;
    }

    /** Runs `act`, then checks that exactly one new entry describes it as `expected`. */
    async function audited(projectId: string, expected: Expected, act: () => Promise<unknown>) {
      const before = new Set((await log(projectId)).map((e) => e.id));
      await act();
      const fresh = (await log(projectId)).filter((e) => !before.has(e.id));
      const matching = fresh.filter((e) => e.action === expected.action);
      assert.equal(matching.length, 1, `one ${expected.action} entry, got ${JSON.stringify(fresh, null, 1)}`);
      const entry = matching[0] as AuditEntry;
      assert.equal(entry.actor.kind, expected.actorKind, expected.action);
      assert.equal(entry.via, expected.via, expected.action);
      // Over HTTP the client's address is recorded; the CLI has none.
      assert.equal(entry.ip, expected.via === "cli" ? null : "127.0.0.1", expected.action);
      const changes = Object.fromEntries(entry.changes.map((c) => [c.field, c.value]));
      for (const [field, value] of Object.entries(expected.changes ?? {})) {
        assert.equal(changes[field], value, `${expected.action}: ${field}`);
      }
      if (expected.link) assert.ok(entry.actor.linkId, `${expected.action} names the link`);
      // Nothing that looks like a token or a hash is ever stored.
      assert.doesNotMatch(JSON.stringify(entry), /evg_|token_hash|password/);
      return entry;
    }

    async function ok(response: TestResponse | Promise<TestResponse>) {
      const r = await response;
      assert.ok(r.status < 400, `${r.status}: ${r.body.slice(0, 500)}`);
      return r;
    }

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

    test("app writes through the API name the app, its link and the caller's address", async () => {
      const { project, ownerId } = await createProject(server.services);
      const owner = userActor(ownerId);
      const { app, token } = await server.services.apps.createApp(owner, {
        projectId: project.id,
        name: "Agenda bot",
        permissions: ["agenda:write", "agenda:read", "tickets:write", "attendees:write", "checkins:write"],
      });
      const create = `mutation ($input: CreateSessionInput!) { createSession(input: $input) { session { id } userErrors { message } } }`;
      let nodeId = "";
      const session = await audited(
        project.id,
        { action: "session.created", actorKind: "app", via: "api", changes: { title: "Keynote" } },
        async () => {
          const r = await gql(server.url, create, {
            token,
            variables: {
              input: {
                projectId: project.id,
                title: "Keynote",
                startsAt: "2026-06-01T09:00:00Z",
                endsAt: "2026-06-01T10:00:00Z",
              },
            },
          });
          assert.deepEqual(r.body.data.createSession.userErrors, [], JSON.stringify(r.body));
          nodeId = r.body.data.createSession.session.id;
        },
      );
      assert.equal(session.actor.label, "Agenda bot");
      assert.equal(session.actor.id, app.id);
      assert.equal(session.actor.linkId, null, "no link in the home project");
      const update = `mutation ($input: UpdateSessionInput!) { updateSession(input: $input) { userErrors { message } } }`;
      await audited(
        project.id,
        { action: "session.updated", actorKind: "app", via: "api", changes: { title: "Opening keynote" } },
        () =>
          gql(server.url, update, { token, variables: { input: { id: nodeId, title: "Opening keynote" } } }),
      );

      // Through a link, in another project: the entry names the link.
      const { project: other } = await createProject(server.services, { ownerId });
      await server.services.apps.authorize(owner, { appId: app.id, projectId: other.id });
      const linked = await audited(
        other.id,
        {
          action: "track.created",
          actorKind: "app",
          via: "api",
          link: true,
          changes: { name: "Linked track" },
        },
        () =>
          gql(
            server.url,
            `mutation ($input: CreateTrackInput!) { createTrack(input: $input) { userErrors { message } } }`,
            {
              token,
              variables: { input: { projectId: other.id, name: "Linked track" } },
            },
          ),
      );
      assert.equal(linked.actor.label, "Agenda bot");
    });

    test("CLI actions are the operator's", async () => {
      const owner = await createUser(server.services);
      const env = { DATABASE_URL: server.config.databaseUrl };
      const made = await runCliInProcess(
        ["projects", "create", "--owner", owner.email, "--name", "CLI Con", "--json"],
        env,
      );
      assert.equal(made.code, 0, made.stderr);
      const projectId = JSON.parse(made.stdout).id as string;
      const [createdEntry] = await log(projectId);
      assert.equal(createdEntry?.action, "project.created");
      assert.equal(createdEntry?.actor.label, "Operator (CLI)");
      assert.equal(createdEntry?.via, "cli");

      let appId = "";
      await audited(
        projectId,
        { action: "app.created", actorKind: "system", via: "cli", changes: { name: "CLI app" } },
        async () => {
          const r = await runCliInProcess(
            [
              "apps",
              "create",
              "--project",
              projectId,
              "--name",
              "CLI app",
              "--permissions",
              "agenda:read",
              "--json",
            ],
            env,
          );
          assert.equal(r.code, 0, r.stderr);
          appId = JSON.parse(r.stdout).id;
        },
      );
      await audited(projectId, { action: "app.token_rotated", actorKind: "system", via: "cli" }, async () => {
        const r = await runCliInProcess(["apps", "rotate-token", "--app", appId, "--json"], env);
        assert.equal(r.code, 0, r.stderr);
      });
      const { project: other } = await createProject(server.services, { ownerId: owner.id });
      await audited(other.id, { action: "app.link.created", actorKind: "user", via: "cli" }, async () => {
        const r = await runCliInProcess(
          ["apps", "link", "--app", appId, "--project", other.id, "--as", owner.email, "--json"],
          env,
        );
        assert.equal(r.code, 0, r.stderr);
      });
      await audited(other.id, { action: "app.link.revoked", actorKind: "system", via: "cli" }, async () => {
        const r = await runCliInProcess(
          ["apps", "revoke", "--app", appId, "--project", other.id, "--json"],
          env,
        );
        assert.equal(r.code, 0, r.stderr);
      });
    });

    test("a rolled-back write leaves no entry", async () => {
      const { project, ownerId } = await createProject(server.services);
      const owner = userActor(ownerId);
      const before = await log(project.id);
      // Refused inside the write's transaction: nothing, no entry either, is written.
      await assert.rejects(
        server.services.projects.update(owner, project.id, {
          startsAt: "2026-06-02T00:00:00Z",
          endsAt: "2026-06-01T00:00:00Z",
        }),
        { code: "BAD_USER_INPUT" },
      );
      // A recorder that fails after the entry was written rolls the write and its entry back.
      const off = server.services.changes.addRecorder(async () => {
        throw new Error("recorder down");
      });
      try {
        await assert.rejects(
          server.services.projects.update(owner, project.id, { name: "Never saved" }),
          /recorder down/,
        );
      } finally {
        off();
      }
      assert.deepEqual(await log(project.id), before);
      assert.equal((await server.services.projects.get(owner, project.id)).name, project.name);
    });
  });
}
