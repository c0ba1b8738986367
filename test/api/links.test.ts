import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createAttendee, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

const read = (id: string) => `{ project(id: "${id}") { name attendees { totalCount } } }`;

for (const engine of testEngines()) {
  describe(`linked projects through the API (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    /** Another organizer's draft project with one attendee. */
    async function organizerProject() {
      const { user: owner, project } = await createOrganizer(server.services);
      const ticket = await createTicketType(server.services, systemActor, project.id);
      await createAttendee(server.services, systemActor, project.id, ticket.id);
      return { project, owner: { kind: "user" as const, userId: owner.id } };
    }

    test("cannot see an organizer's project before it is linked, exactly as if it did not exist", async () => {
      const { token } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { project } = await organizerProject();
      const linked = await gql(server.url, read(project.id), { token });
      const missing = await gql(server.url, read("Zz9Q"), { token });
      assert.deepEqual(linked.body.data, missing.body.data);
      assert.deepEqual(linked.body.errors, missing.body.errors);
      assert.equal(linked.body.errors[0].extensions.code, "NOT_FOUND");
    });

    test("reads a linked project with the granted permissions, lists it in viewer.projects, and loses it at once when revoked", async () => {
      const {
        app,
        token,
        projectId: home,
      } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { project, owner } = await organizerProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const { body } = await gql(server.url, read(project.id), { token });
      assert.deepEqual(body.data.project, { name: project.name, attendees: { totalCount: 1 } });
      const viewer = await gql(server.url, "{ viewer { projects { totalCount edges { node { id } } } } }", {
        token,
      });
      assert.deepEqual(
        viewer.body.data.viewer.projects.edges.map((e: { node: { id: string } }) => e.node.id),
        [home, project.id],
      );
      await server.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
      const after = await gql(server.url, read(project.id), { token });
      assert.equal(after.body.data.project, null);
      assert.equal(after.body.errors[0].extensions.code, "NOT_FOUND");
      const viewerAfter = await gql(server.url, "{ viewer { projects { totalCount } } }", { token });
      assert.equal(viewerAfter.body.data.viewer.projects.totalCount, 1);
    });

    test("does not let another app's token read a project linked to this app", async () => {
      const { app } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { token: otherToken } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { project, owner } = await organizerProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const { body } = await gql(server.url, read(project.id), { token: otherToken });
      assert.equal(body.errors[0].extensions.code, "NOT_FOUND");
    });

    test("keeps the consented permissions when the app asks for more, until the organizer re-approves", async () => {
      const { app, token } = await createApp(server.services, { permissions: ["agenda:read"] });
      const { project, owner } = await organizerProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      await server.services.apps.updateApp(systemActor, {
        id: app.id,
        permissions: ["agenda:read", "attendees:read"],
      });
      const widened = await gql(server.url, read(project.id), { token });
      assert.equal(widened.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(widened.body.errors[0].extensions.requiredPermission, "attendees:read");
      const perms = await gql(
        server.url,
        `{ project(id: "${project.id}") { viewerPermissions } viewer { permissions } }`,
        { token },
      );
      assert.deepEqual(perms.body.data.project.viewerPermissions, ["AGENDA_READ"]);
      assert.deepEqual(perms.body.data.viewer.permissions, ["AGENDA_READ", "ATTENDEES_READ"]);
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const approved = await gql(server.url, read(project.id), { token });
      assert.equal(approved.body.data.project.attendees.totalCount, 1);
    });

    test("loses a permission on linked projects at once when the app drops it", async () => {
      const { app, token } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { project, owner } = await organizerProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      assert.equal(
        (await gql(server.url, read(project.id), { token })).body.data.project.attendees.totalCount,
        1,
      );
      await server.services.apps.updateApp(systemActor, { id: app.id, permissions: [] });
      const after = await gql(server.url, read(project.id), { token });
      assert.equal(after.body.errors[0].extensions.requiredPermission, "attendees:read");
    });

    test("loses every project when the app is deleted", async () => {
      const { app, token } = await createApp(server.services, { permissions: ["attendees:read"] });
      const { project, owner } = await organizerProject();
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      await server.services.apps.deleteApp(systemActor, { id: app.id });
      assert.equal((await gql(server.url, read(project.id), { token })).status, 401);
    });
  });
}
