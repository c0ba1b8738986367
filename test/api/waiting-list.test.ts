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

    test("a seat freed while someone waits is not on sale: the public API, the event page and 20 racing apps see none", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const type = await createTicketType(server.services, owner, project.id, {
        name: "Owed pass",
        quantity: 2,
        priceMinor: 0,
      });
      const holders = [
        await createAttendee(server.services, owner, project.id, type.id),
        await createAttendee(server.services, owner, project.id, type.id),
      ];
      await server.services.waitingList.join(
        { projectId: project.id, ticketTypeId: type.id, name: "Wendy", email: "wendy-owed@example.org" },
        "192.0.2.11",
      );
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:write", "tickets:read"],
      });
      const id = globalId("TicketType", type.id);
      const figures = async () => {
        const query =
          "query T($id: ID!) { node(id: $id) { ... on TicketType { available sold remaining } } }";
        const publicRead = await gql(server.url, query, { variables: { id } });
        const read = await gql(server.url, query, { token, variables: { id } });
        assert.equal(read.body.errors, undefined, JSON.stringify(read.body));
        return { public: publicRead.body.data.node.available, ...read.body.data.node };
      };
      const page = async () => {
        const html = await (await fetch(`${server.url}/e/${project.id}`)).text();
        return { left: /\d+ left/.test(html), waitingList: /Join the waiting list/i.test(html) };
      };

      // One seat frees while Wendy waits (the worker may offer it meanwhile: it is hers either way).
      await server.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      const after = await figures();
      assert.equal(after.public, false, "the public API does not show Wendy's seat as free");
      assert.equal(after.available, false);
      assert.equal(after.remaining, 0);
      assert.deepEqual(await page(), { left: false, waitingList: true });

      const register = (n: number) =>
        gql(
          server.url,
          `mutation ($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } userErrors { field message } } }`,
          {
            token,
            variables: {
              input: {
                projectId: project.id,
                ticketTypeId: id,
                name: `Racer ${n}`,
                email: `racer-${n}@example.org`,
              },
            },
          },
        );
      const raced = await Promise.all(Array.from({ length: 20 }, (_, n) => register(n)));
      const got = raced.filter((r) => r.body.data?.registerAttendee?.attendee);
      assert.equal(got.length, 0, "nobody outside the line takes the owed seat");
      for (const r of raced)
        assert.match(
          r.body.data.registerAttendee.userErrors[0]?.message ?? "",
          /sold out/,
          JSON.stringify(r.body),
        );

      // Raising the quantity adds a seat beside the line: on sale at once, to anyone.
      await server.services.tickets.updateTicketType(owner, { id: type.id, quantity: 3 });
      await server.services.waitingList.serve();
      const raised = await figures();
      assert.deepEqual([raised.public, raised.remaining, raised.sold], [true, 1, 2]);
      assert.deepEqual(await page(), { left: true, waitingList: false });
    });
  });
}
