import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import type { Services } from "../../src/services.js";
import { cardEvent, cardOrder, cardServerPerSuite, links, sessionOf } from "../helpers/card-orders.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import type { StripeServer } from "../helpers/stripe-server.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

const cancel = `mutation Cancel($id: ID!) {
  cancelOrder(input: { id: $id }) {
    order { state refunded { amountMinor } refunds { amountMinor state } tickets { status } }
    userErrors { code message }
  }
}`;
const orderQuery = `query Order($id: ID!) {
  node(id: $id) { ... on Order { state refunded { amountMinor } refunds { amountMinor state } tickets { status } } }
}`;

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/** A card event whose invoices have a seller and whose buyers may cancel for a day; a paid order of a pass, a pass and a workshop. */
async function paidCardOrder(services: Services, stand: StripeServer, passes = 10) {
  const event = await cardEvent(services, stand, passes);
  await services.orders.updateSettings(event.owner, event.project.id, {
    holdMinutes: 60,
    bankDetails: null,
    sellerDetails: "Card Conf GmbH",
    selfCancelUntil: inHours(24),
  });
  const order = await cardOrder(services, event.project.id, [
    event.pass.id,
    event.pass.id,
    event.workshop.id,
  ]);
  const session = sessionOf(stand, await services.stripe.checkoutUrl(order, links));
  assert.equal((await stand.pay(session.id)).status, 200);
  const sent = () =>
    stand.refunds
      .filter((r) => r.payment_intent === stand.sessions.get(session.id)?.payment_intent)
      .map((r) => r.amount);
  return { ...event, order, sent };
}

async function invoiceTotals(services: Services, orderId: string) {
  const issued = (await services.orders.invoicesOf([orderId])).get(orderId) ?? [];
  return issued.map((i) => [i.kind, i.totalMinor]);
}

/** What an order's invoice still charges after its credit notes. */
async function uncredited(services: Services, orderId: string) {
  return (await invoiceTotals(services, orderId)).reduce((sum, [, total]) => sum + Number(total), 0);
}

// Issue 40's cancellations with money: every cancel of a paid card order refunds through Stripe
// (the local stand-in) before it cancels anything, so Stripe failing leaves the order as it was.
for (const engine of testEngines()) {
  describe(`cancelling paid card orders (${engine.name})`, () => {
    // The app only learns where Stripe is: the stand-in's address, as an operator would set it.
    const { stand, server } = cardServerPerSuite(engine);

    test("Stripe answering 500 leaves the order paid with nothing cancelled and says so; the next cancel refunds once", async () => {
      const { project, owner, ownerId, order, token, sent } = await paidCardOrder(server.services, stand);
      const id = globalId("Order", order.id);
      const callsBefore = stand.calls.length;
      // The SDK retries once itself: two failures in a row reach the organizer.
      stand.failNext(2, 500);
      const down = await gql(server.url, cancel, { token, variables: { id } });
      assert.equal(down.body.errors[0].extensions.code, "SERVICE_UNAVAILABLE");
      assert.match(down.body.errors[0].message, /stays paid and nothing was cancelled/);
      const still = (await gql(server.url, orderQuery, { token, variables: { id } })).body.data.node;
      assert.equal(still.state, "PAID");
      assert.ok(still.tickets.every((t: { status: string }) => t.status === "REGISTERED"));
      assert.deepEqual(still.refunds, [{ amountMinor: 59700, state: "PENDING" }], "reserved, not made");
      assert.deepEqual(await invoiceTotals(server.services, order.id), [["INVOICE", 59700]]);
      assert.deepEqual(sent(), []);

      // Webhook subscribers hear of the refund and of each cancelled ticket once it is made.
      const receiver = await startReceiver();
      try {
        const { app } = await createApp(server.services, {
          projectId: project.id,
          ownerId,
          permissions: ["orders:read", "attendees:read"],
        });
        await server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["order.refunded", "order.cancelled", "attendee.cancelled"],
        });
        const done = (await gql(server.url, cancel, { token, variables: { id } })).body.data.cancelOrder;
        assert.deepEqual(done.userErrors, []);
        assert.equal(done.order.state, "CANCELLED");
        assert.equal(done.order.refunded.amountMinor, 59700);
        assert.ok(done.order.tickets.every((t: { status: string }) => t.status === "CANCELLED"));
        assert.deepEqual(sent(), [59700], "made once");
        const keys = stand.calls
          .slice(callsBefore)
          .filter((c) => c.path === "/v1/refunds")
          .map((c) => c.idempotencyKey);
        assert.equal(new Set(keys).size, 1, "every try carries the refund's one key");
        assert.deepEqual(await invoiceTotals(server.services, order.id), [
          ["INVOICE", 59700],
          ["CREDIT_NOTE", -59700],
        ]);
        const received = (await receiver.waitFor(5)).map((r) => r.json.type).sort();
        assert.deepEqual(received, [
          "attendee.cancelled",
          "attendee.cancelled",
          "attendee.cancelled",
          "order.cancelled",
          "order.refunded",
        ]);
      } finally {
        await receiver.close();
      }
      // A second cancel changes nothing and asks Stripe for nothing.
      const again = (await gql(server.url, cancel, { token, variables: { id } })).body.data.cancelOrder;
      assert.equal(again.order.state, "CANCELLED");
      assert.deepEqual(sent(), [59700]);
    });

    test("cancelling a partly refunded order refunds what is left, credits the rest and frees the seats", async () => {
      const { project, owner, pass, order, token, sent } = await paidCardOrder(server.services, stand, 2);
      const id = globalId("Order", order.id);
      await server.services.refunds.refundOrder(owner, { id: order.id, amountMinor: 9900 });
      const done = (await gql(server.url, cancel, { token, variables: { id } })).body.data.cancelOrder;
      assert.deepEqual([done.order.state, done.order.refunded.amountMinor], ["CANCELLED", 59700]);
      assert.deepEqual(sent(), [9900, 49800]);
      assert.equal(await uncredited(server.services, order.id), 0, "credited in full");
      // Both passes are free again.
      const again = await cardOrder(server.services, project.id, [pass.id, pass.id]);
      assert.equal(again.state, "PENDING");
    });

    test("a buyer cancels one ticket of a card order: refunded once however often it is asked, never more than paid", async () => {
      const { project, order, sent } = await paidCardOrder(server.services, stand);
      const tickets = await server.services.orders.ticketsOf(order);
      const [first, second, workshop] = tickets;
      assert.ok(first && second && workshop);
      const racing = await Promise.allSettled(
        Array.from({ length: 4 }, () =>
          server.services.refunds.cancelTicketByBuyer(project.id, order.id, first.id),
        ),
      );
      assert.ok(racing.some((r) => r.status === "fulfilled"));
      assert.deepEqual(sent(), [24900], "one pass refunded once");
      const after = (await server.services.orders.ordersByIds([order.id])).get(order.id);
      assert.deepEqual([after?.state, after?.refundedMinor], ["PAID", 24900]);
      const statuses = (await server.services.orders.ticketsOf(order)).map((t) => t.status);
      assert.deepEqual(statuses, ["CANCELLED", "REGISTERED", "REGISTERED"]);
      const notes = ((await server.services.orders.invoicesOf([order.id])).get(order.id) ?? []).filter(
        (i) => i.kind === "CREDIT_NOTE",
      );
      assert.deepEqual(
        notes.map((n) => n.document.lines.map((l) => [l.description, l.quantity, l.grossMinor])),
        [[["Pass", -1, -24900]]],
      );
      // The other two, and the whole order, all at once: what was paid goes back, not a cent more.
      await Promise.allSettled([
        server.services.refunds.cancelTicketByBuyer(project.id, order.id, second.id),
        server.services.refunds.cancelTicketByBuyer(project.id, order.id, workshop.id),
        server.services.refunds.cancelByBuyer(project.id, order.id),
      ]);
      const closed = (await server.services.orders.ordersByIds([order.id])).get(order.id);
      assert.deepEqual([closed?.state, closed?.refundedMinor], ["CANCELLED", 59700]);
      assert.equal(
        sent().reduce((sum, amount) => sum + amount, 0),
        59700,
      );
      assert.equal(await uncredited(server.services, order.id), 0, "credited in full");
    });
  });
}
