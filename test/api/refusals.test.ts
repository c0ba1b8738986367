import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createAttendee, createSession, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

// What a refused field answers: an error naming that field, and the rest of the query answering.
for (const engine of testEngines()) {
  describe(`permission refusals (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    /** Another organizer's published project with one attendee. */
    async function publishedProject() {
      const { user: owner, project } = await createOrganizer(server.services);
      const ticket = await createTicketType(server.services, systemActor, project.id);
      await createAttendee(server.services, systemActor, project.id, ticket.id);
      await server.services.projects.update(systemActor, project.id, { status: "PUBLISHED" });
      return { project, owner: { kind: "user" as const, userId: owner.id } };
    }

    const attendeesOf = (id: string) => `{ project(id: "${id}") { name attendees { totalCount } } }`;

    test("a revoked app is told the published project is not linked to it, not that it lacks a permission it holds", async () => {
      const { app, token } = await createApp(server.services, {
        permissions: ["attendees:read", "agenda:write"],
      });
      const { project, owner } = await publishedProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const linked = await gql(server.url, attendeesOf(project.id), { token });
      assert.deepEqual(linked.body.data.project, { name: project.name, attendees: { totalCount: 1 } });

      await server.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
      const revoked = await gql(server.url, attendeesOf(project.id), { token });
      assert.deepEqual(revoked.body.data.project, { name: project.name, attendees: null });
      assert.equal(revoked.body.errors.length, 1);
      const [error] = revoked.body.errors;
      assert.equal(error.extensions.code, "NOT_FOUND");
      assert.match(error.message, /not linked to this app/);
      assert.deepEqual(error.path, ["project", "attendees"]);
      assert.equal(error.extensions.requiredPermission, undefined);

      // A write hears the same, from the service's own check.
      const write = await gql(
        server.url,
        `mutation { createTrack(input: { projectId: "${project.id}", name: "Late" }) { track { id } } }`,
        { token },
      );
      assert.equal(write.body.errors?.[0]?.extensions.code, "NOT_FOUND", JSON.stringify(write.body));
      assert.match(write.body.errors[0].message, /not linked to this app/);
    });

    test("an app that never was linked hears the same; a linked one without the permission is told which it lacks", async () => {
      const { token: stranger } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { app, token: narrow } = await createApp(server.services, { permissions: ["agenda:read"] });
      const { project, owner } = await publishedProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });

      const unlinked = await gql(server.url, attendeesOf(project.id), { token: stranger });
      assert.equal(unlinked.body.errors[0].extensions.code, "NOT_FOUND");
      assert.match(unlinked.body.errors[0].message, /not linked to this app/);

      const withoutIt = await gql(server.url, attendeesOf(project.id), { token: narrow });
      assert.deepEqual(withoutIt.body.data.project, { name: project.name, attendees: null });
      assert.equal(withoutIt.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(withoutIt.body.errors[0].extensions.requiredPermission, "attendees:read");
    });

    test("the public, without a token, is still told the permission a field needs", async () => {
      const { project } = await publishedProject();
      const { body } = await gql(server.url, attendeesOf(project.id));
      assert.equal(body.errors[0].extensions.code, "FORBIDDEN");
      assert.deepEqual(body.data.project, { name: project.name, attendees: null });
    });

    test("a refused widened list nulls only itself: the rest of the project answers, each error names its field", async () => {
      const { project, owner } = await publishedProject();
      await createSession(server.services, systemActor, project.id, { status: "DRAFT", title: "Draft" });
      await createSession(server.services, systemActor, project.id, {
        status: "PUBLISHED",
        title: "Keynote",
      });
      const query = `{ project(id: "${project.id}") {
        name
        sessions { totalCount }
        allSessions { totalCount }
        allSpeakers { totalCount }
        allTicketTypes { totalCount }
      } }`;
      const { body } = await gql(server.url, query);
      assert.deepEqual(body.data.project, {
        name: project.name,
        sessions: { totalCount: 1 },
        allSessions: null,
        allSpeakers: null,
        allTicketTypes: null,
      });
      const refused = body.errors.map((e: { path: string[]; extensions: Record<string, string> }) => [
        e.path.join("."),
        e.extensions.code,
        e.extensions.requiredPermission,
      ]);
      assert.deepEqual(refused.sort(), [
        ["project.allSessions", "FORBIDDEN", "agenda:read"],
        ["project.allSpeakers", "FORBIDDEN", "agenda:read"],
        ["project.allTicketTypes", "FORBIDDEN", "tickets:read"],
      ]);

      const { app, token } = await createApp(server.services, {
        permissions: ["agenda:read", "tickets:read"],
      });
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const granted = await gql(server.url, query, { token });
      assert.equal(granted.body.errors, undefined);
      assert.deepEqual(granted.body.data.project.allSessions, { totalCount: 2 });
      assert.deepEqual(granted.body.data.project.allTicketTypes, { totalCount: 1 });
    });

    test("the deprecated widening arguments still refuse as before, until their removal", async () => {
      const { project } = await publishedProject();
      const { body } = await gql(
        server.url,
        `{ project(id: "${project.id}") { name sessions(status: [DRAFT]) { totalCount } } }`,
      );
      assert.equal(body.data.project, null);
      assert.equal(body.errors[0].extensions.code, "FORBIDDEN");
    });
  });
}
