import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createAttendee, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const waitingListQuery = `query W($id: ID!) {
  node(id: $id) { ... on TicketType { name waitingList(first: 10) { totalCount edges { node { id name email state ticketType { name } } } } } }
}`;

for (const engine of testEngines()) {
  describe(`waiting list API and erasure (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("TicketType.waitingList needs attendees:read; erasing an attendee empties their entries", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const type = await createTicketType(server.services, owner, project.id, {
        name: "Pass",
        quantity: 1,
        priceMinor: 0,
      });
      const other = await createTicketType(server.services, owner, project.id, {
        name: "Other",
        quantity: 5,
      });
      await createAttendee(server.services, owner, project.id, type.id);
      const vera = await createAttendee(server.services, owner, project.id, other.id, {
        name: "Vera Waiting",
        email: "vera-wait@example.org",
      });
      await server.services.waitingList.join(
        {
          projectId: project.id,
          ticketTypeId: type.id,
          name: "Vera Waiting",
          email: "Vera-Wait@example.org",
        },
        "192.0.2.10",
      );
      const token = async (permissions: Permission[]) =>
        (await createApp(server.services, { projectId: project.id, ownerId, permissions })).token;
      const ticketsOnly = await token(["tickets:read"]);
      const reader = await token(["tickets:read", "attendees:read"]);
      const id = globalId("TicketType", type.id);

      const refused = await gql(server.url, waitingListQuery, { token: ticketsOnly, variables: { id } });
      assert.equal(refused.body.data.node.waitingList, null);
      assert.equal(refused.body.errors[0].extensions.requiredPermission, "attendees:read");
      const publicRead = await gql(server.url, waitingListQuery, { variables: { id } });
      assert.equal(publicRead.body.data.node?.waitingList ?? null, null);

      const read = await gql(server.url, waitingListQuery, { token: reader, variables: { id } });
      assert.equal(read.body.errors, undefined);
      const list = read.body.data.node.waitingList;
      const nodes = list.edges.map((e: { node: unknown }) => e.node);
      assert.equal(list.totalCount, 1);
      assert.deepEqual(
        nodes.map((n: { name: string; email: string; state: string; ticketType: { name: string } }) => [
          n.name,
          n.email,
          n.state,
          n.ticketType.name,
        ]),
        [["Vera Waiting", "Vera-Wait@example.org", "WAITING", "Pass"]],
      );
      const entry = await gql(
        server.url,
        "query N($id: ID!) { node(id: $id) { ... on WaitingListEntry { name } } }",
        {
          token: reader,
          variables: { id: nodes[0].id },
        },
      );
      assert.equal(entry.body.data.node.name, "Vera Waiting");

      await server.services.attendees.eraseAttendee(owner, { id: vera.id });
      const after = await gql(server.url, waitingListQuery, { token: reader, variables: { id } });
      const [erased] = after.body.data.node.waitingList.edges.map((e: { node: unknown }) => e.node);
      assert.equal(erased.name, "Erased attendee");
      assert.match(erased.email, /@erased\.invalid$/);
      assert.equal(erased.state, "REMOVED");
    });
  });
}
