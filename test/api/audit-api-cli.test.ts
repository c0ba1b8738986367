import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { auditChecks } from "../helpers/audit-log.js";
import { runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The audit log of app writes through the API and operator commands through the CLI: one entry
// per action naming who did it and how; a rolled-back write leaves none.

for (const engine of testEngines()) {
  describe(`audit log: every API and CLI action leaves one entry (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    const { log, audited } = auditChecks(server);

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
