import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { publicActor } from "../../src/modules/access/actor.js";
import type { Services } from "../../src/services.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };

const ordersQuery = `query Orders($id: ID!, $state: OrderState, $first: Int, $after: String) {
  project(id: $id) {
    orders(state: $state, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id code state provider paymentReference total { amountMinor currency }
        lines { ticketTypeName quantity unitPriceMinor }
        tickets { name ticketCode order { code } } } }
    }
  }
}`;

const markPaid = `mutation Pay($id: ID!) {
  markOrderPaid(input: { id: $id }) { order { state paidAt } userErrors { code message } }
}`;
const cancel = `mutation Cancel($id: ID!) {
  cancelOrder(input: { id: $id }) { order { state } userErrors { code message } }
}`;

async function eventWithOrders(services: Services, count: number) {
  const { project, owner, ownerId } = await createPublishedProject(services);
  await services.orders.updateSettings(owner, project.id, { holdMinutes: 15, bankDetails: "IBAN DE02 1203" });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Pass",
    priceMinor: 24900,
    paymentMode: "BANK_TRANSFER",
  });
  const placed = [];
  for (let i = 0; i < count; i++) {
    placed.push(
      await services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [
          { ticketTypeId: pass.id, name: "Ann", email: uniqueEmail() },
          { ticketTypeId: pass.id, name: "Ben", email: uniqueEmail() },
        ],
      }),
    );
  }
  return { project, owner, ownerId, pass, placed };
}

for (const engine of testEngines()) {
  describe(`orders API (${engine.name})`, () => {
    const server = serverPerSuite(engine, env);

    test("hides orders from apps without orders:read and refuses changes without orders:write", async () => {
      const { project, ownerId, placed } = await eventWithOrders(server.services, 1);
      const id = globalId("Order", placed[0]?.order.id ?? "");
      const { token: blind } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:read", "attendees:write"],
      });
      const { token: reader } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["orders:read"],
      });
      const listed = await gql(server.url, ordersQuery, { token: blind, variables: { id: project.id } });
      assert.equal(listed.body.data.project.orders, null);
      assert.equal(listed.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(listed.body.errors[0].extensions.requiredPermission, "orders:read");
      const publicRead = await gql(server.url, ordersQuery, { variables: { id: project.id } });
      assert.equal(publicRead.body.data.project.orders, null);
      const node = await gql(server.url, `query($id: ID!) { node(id: $id) { id } }`, {
        token: blind,
        variables: { id },
      });
      assert.equal(node.body.data.node, null);
      const refused = await gql(server.url, markPaid, { token: reader, variables: { id } });
      assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
      const stranger = await createApp(server.services, { permissions: ["orders:read", "orders:write"] });
      const foreign = await gql(server.url, markPaid, { token: stranger.token, variables: { id } });
      // Another project's order is missing, not forbidden: it never says the id exists.
      assert.equal(foreign.body.data, null);
      assert.equal(foreign.body.errors[0].extensions.code, "NOT_FOUND");
      assert.equal(await server.services.orders.findOrder(publicActor, placed[0]?.order.id ?? ""), undefined);
    });

    test("lists orders by state with Relay paging, their lines and tickets, and marks one paid twice", async () => {
      const { project, ownerId, placed } = await eventWithOrders(server.services, 3);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["orders:read", "orders:write", "attendees:read"],
      });
      const first = await gql(server.url, ordersQuery, {
        token,
        variables: { id: project.id, first: 2 },
      });
      assert.equal(first.body.errors, undefined);
      const page = first.body.data.project.orders;
      page.nodes = page.edges.map((e: { node: unknown }) => e.node);
      assert.equal(page.totalCount, 3);
      assert.equal(page.pageInfo.hasNextPage, true);
      assert.deepEqual(page.nodes[0].total, { amountMinor: 49800, currency: "EUR" });
      assert.deepEqual(page.nodes[0].lines, [{ ticketTypeName: "Pass", quantity: 2, unitPriceMinor: 24900 }]);
      assert.equal(page.nodes[0].provider, "BANK_TRANSFER");
      assert.equal(page.nodes[0].paymentReference, page.nodes[0].code);
      assert.deepEqual(
        page.nodes[0].tickets.map((t: { name: string; order: { code: string } }) => [t.name, t.order.code]),
        [
          ["Ann", page.nodes[0].code],
          ["Ben", page.nodes[0].code],
        ],
      );
      const rest = await gql(server.url, ordersQuery, {
        token,
        variables: { id: project.id, first: 2, after: page.pageInfo.endCursor },
      });
      assert.equal(rest.body.data.project.orders.edges.length, 1);

      const id = globalId("Order", placed[1]?.order.id ?? "");
      const paid = await gql(server.url, markPaid, { token, variables: { id } });
      const again = await gql(server.url, markPaid, { token, variables: { id } });
      assert.equal(paid.body.data.markOrderPaid.order.state, "PAID");
      assert.equal(again.body.data.markOrderPaid.order.paidAt, paid.body.data.markOrderPaid.order.paidAt);
      const onlyPaid = await gql(server.url, ordersQuery, {
        token,
        variables: { id: project.id, state: "PAID" },
      });
      assert.deepEqual(
        onlyPaid.body.data.project.orders.edges.map((e: { node: { id: string } }) => e.node.id),
        [id],
      );
      const cancelled = await gql(server.url, cancel, { token, variables: { id } });
      assert.equal(cancelled.body.data.cancelOrder.order.state, "CANCELLED");
      const refused = await gql(server.url, markPaid, { token, variables: { id } });
      assert.equal(refused.body.data.markOrderPaid.order, null);
      assert.equal(refused.body.data.markOrderPaid.userErrors[0].code, "CONFLICT");
    });

    test("announces order.created, order.paid and order.cancelled to subscribed apps with orders:read", async () => {
      const receiver = await startReceiver();
      try {
        const { project, owner, ownerId, pass } = await eventWithOrders(server.services, 0);
        const { app } = await createApp(server.services, {
          projectId: project.id,
          ownerId,
          permissions: ["orders:read"],
        });
        await server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["order.created", "order.paid", "order.cancelled"],
        });
        const placed = await server.services.orders.placeOrder(publicActor, {
          projectId: project.id,
          buyerName: "Bea Buyer",
          buyerEmail: uniqueEmail("buyer"),
          tickets: [{ ticketTypeId: pass.id, name: "Ann", email: uniqueEmail() }],
        });
        await server.services.orders.markOrderPaid(owner, { id: placed.order.id });
        await server.services.refunds.cancelOrder(owner, { id: placed.order.id });
        const received = await receiver.waitFor(3);
        // Rendered when sent, so each carries the order as it is then; the types come in commit order.
        assert.deepEqual(
          received.map((r) => r.json.type),
          ["order.created", "order.paid", "order.cancelled"],
        );
        assert.ok(received.every((r) => r.json.data.object.code === placed.order.code));
      } finally {
        await receiver.close();
      }
    });
  });
}
