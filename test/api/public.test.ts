import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { testEngines } from "../helpers/engines.js";
import {
  createAttendee,
  createProject,
  createPublishedProject,
  createSession,
  createTicketType,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

for (const engine of testEngines()) {
  describe(`public API without a token (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("does not find a draft or archived project, exactly like a missing one", async () => {
      const { project: draft } = await createProject(server.services);
      const { project: archived } = await createProject(server.services, { input: { status: "ARCHIVED" } });
      const answers = [];
      for (const id of [draft.id, archived.id, "ZZZZ", "bad!", "toolong"]) {
        const { status, body } = await gql(server.url, "query($id: ID!) { project(id: $id) { name } }", {
          variables: { id },
        });
        assert.equal(status, 200);
        answers.push(body);
      }
      for (const body of answers) {
        assert.deepEqual(body.data, { project: null });
        assert.equal(body.errors[0].extensions.code, "NOT_FOUND");
        assert.equal(body.errors[0].message, "Project not found");
      }
    });

    test("never shows attendees or their personal data", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      const ticket = await createTicketType(server.services, owner, project.id);
      const attendee = await createAttendee(server.services, owner, project.id, ticket.id);
      const list = await gql(
        server.url,
        `{ project(id: "${project.id}") { name attendees { edges { node { email } } } } }`,
      );
      assert.equal(list.body.data.project.name, project.name);
      assert.equal(list.body.data.project.attendees, null);
      assert.equal(list.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(list.body.errors[0].extensions.requiredPermission, "attendees:read");
      const node = await gql(
        server.url,
        `{ node(id: "${globalId("Attendee", attendee.id)}") { id ... on Attendee { email } } }`,
      );
      assert.equal(node.body.data.node, null);
      assert.ok(!JSON.stringify(list.body).includes(attendee.email));
      assert.ok(!JSON.stringify(node.body).includes(attendee.email));
    });

    test("lists only published sessions, and refuses drafts without agenda:read", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      await createSession(server.services, owner, project.id, {
        title: "Published talk",
        status: "PUBLISHED",
      });
      await createSession(server.services, owner, project.id, { title: "Secret draft", status: "DRAFT" });
      const { body } = await gql(
        server.url,
        `{ project(id: "${project.id}") { sessions { totalCount edges { node { title status speakers { name } room { name } } } } } }`,
      );
      assert.deepEqual(
        body.data.project.sessions.edges.map((e: { node: { title: string } }) => e.node.title),
        ["Published talk"],
      );
      assert.equal(body.data.project.sessions.totalCount, 1);
      const drafts = await gql(
        server.url,
        `{ project(id: "${project.id}") { sessions(status: [DRAFT]) { edges { node { title } } } } }`,
      );
      assert.equal(drafts.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(drafts.body.errors[0].extensions.requiredPermission, "agenda:read");
      assert.ok(!JSON.stringify(drafts.body).includes("Secret draft"));
    });

    test("a session's speakers answer their own id and sessions, read only when asked for", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      const speaker = await server.services.agenda.createSpeaker(owner, {
        projectId: project.id,
        name: "Ada",
      });
      await createSession(server.services, owner, project.id, {
        title: "Keynote",
        status: "PUBLISHED",
        speakerIds: [speaker.id],
      });
      // The page's speakers statement reads only what the selection asks for (no key by default):
      // each of these selections must still answer the key's fields.
      const speakersOf = async (selection: string) => {
        const { body } = await gql(
          server.url,
          `{ project(id: "${project.id}") { sessions(first: 1) { edges { node { speakers { ${selection} } } } } } }`,
        );
        assert.equal(body.errors, undefined, JSON.stringify(body.errors));
        return body.data.project.sessions.edges[0].node.speakers;
      };
      assert.deepEqual(await speakersOf("name"), [{ name: "Ada" }]);
      assert.deepEqual(await speakersOf("id"), [{ id: globalId("Speaker", speaker.id) }]);
      assert.deepEqual(await speakersOf("sessions { title }"), [{ sessions: [{ title: "Keynote" }] }]);
    });

    test("shows ticket types on sale with price and availability but no counts", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      await createTicketType(server.services, owner, project.id, { name: "Regular", quantity: 1 });
      await createTicketType(server.services, owner, project.id, {
        name: "Past",
        salesStartAt: "2020-01-01T00:00:00Z",
        salesEndAt: "2020-02-01T00:00:00Z",
      });
      const { body } = await gql(
        server.url,
        `{ project(id: "${project.id}") { ticketTypes { edges { node { name price { amountMinor currency } available onSale } } } } }`,
      );
      assert.deepEqual(body.data.project.ticketTypes.edges, [
        {
          node: {
            name: "Regular",
            price: { amountMinor: 9900, currency: "EUR" },
            available: true,
            onSale: true,
          },
        },
      ]);
      const counts = await gql(
        server.url,
        `{ project(id: "${project.id}") { ticketTypes { edges { node { quantity sold } } } } }`,
      );
      assert.equal(counts.body.errors[0].extensions.requiredPermission, "tickets:read");
      assert.deepEqual(counts.body.data.project.ticketTypes.edges[0].node, { quantity: null, sold: null });
    });

    test("answers viewer with null and refuses every mutation", async () => {
      const { project } = await createPublishedProject(server.services);
      const viewer = await gql(server.url, "{ viewer { name } }");
      assert.deepEqual([viewer.body.data, viewer.body.errors], [{ viewer: null }, undefined]);
      const write = await gql(
        server.url,
        `mutation { updateProject(input: {projectId: "${project.id}", name: "Hacked"}) { project { name } } }`,
      );
      assert.equal(write.body.errors[0].extensions.code, "FORBIDDEN");
      const again = await gql(server.url, `{ project(id: "${project.id}") { name } }`);
      assert.equal(again.body.data.project.name, project.name);
    });
  });
}
