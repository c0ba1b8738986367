import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { cardEvent, cardOrder, cardServerPerSuite, links, sessionOf } from "../helpers/card-orders.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

const refund = `mutation Refund($id: ID!, $amount: Int) {
  refundOrder(input: { id: $id, amountMinor: $amount }) {
    order { state refunded { amountMinor } refunds { amountMinor state reason manual } tickets { status } }
    userErrors { code message field }
  }
}`;
const orderQuery = `query Order($id: ID!) { node(id: $id) { ... on Order { state paidAt refunded { amountMinor } } } }`;

for (const engine of testEngines()) {
  describe(`card payments through Stripe (${engine.name})`, () => {
    // The app only learns where Stripe is: the stand-in's address, as an operator would set it.
    const { stand, server } = cardServerPerSuite(engine);

    test("refuses a forged, unsigned, stale or wrongly addressed notification, then pays once from Stripe's", async () => {
      const { project, pass, workshop, token } = await cardEvent(server.services, stand);
      const other = await cardEvent(server.services, stand);
      const order = await cardOrder(server.services, project.id, [pass.id, workshop.id]);
      assert.equal(order.state, "PENDING");
      assert.equal(order.totalMinor, 34800);
      const url = await server.services.stripe.checkoutUrl(order, links);
      const session = sessionOf(stand, url);
      assert.equal(session.amount_total, 34800);
      assert.equal(session.metadata.eventgraph_order, order.id);
      // A second click while the session is open goes back to it instead of opening a second payment.
      assert.equal(await server.services.stripe.checkoutUrl(order, links), url);

      const event = JSON.stringify(stand.completedEvent(session.id));
      const forged = await stand.deliver(
        project.id,
        event,
        stand.sign(event, undefined, "whsec_someoneelse"),
      );
      assert.equal(forged.status, 400);
      assert.equal((await stand.deliver(project.id, event, null)).status, 400);
      assert.equal((await stand.deliver(project.id, event, "t=1,v1=00")).status, 400);
      const stale = stand.sign(event, Math.floor(Date.now() / 1000) - 600);
      assert.equal((await stand.deliver(project.id, event, stale)).status, 400, "outside the replay window");
      const tampered = event.replace('"amount_total":34800', '"amount_total":1');
      assert.equal((await stand.deliver(project.id, tampered, stand.sign(event))).status, 400);
      // Signed by Stripe for another project's endpoint: that project has no such order.
      const elsewhere = await stand.deliver(other.project.id, event);
      assert.deepEqual([elsewhere.status, (elsewhere.json as { outcome: string }).outcome], [200, "ignored"]);
      assert.equal((await stand.deliver("zzzz", event)).status, 400, "as a bad signature: nothing to learn");
      const still = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", order.id) },
      });
      assert.equal(still.body.data.node.state, "PENDING");

      const paid = await stand.deliver(project.id, event);
      assert.deepEqual([paid.status, (paid.json as { outcome: string }).outcome], [200, "paid"]);
      // The same event again (Stripe retries, or someone replays it freshly signed) changes nothing.
      const replay = await stand.deliver(project.id, event);
      assert.deepEqual([replay.status, (replay.json as { outcome: string }).outcome], [200, "replayed"]);
      const unknown = JSON.stringify({
        id: "evt_x",
        object: "event",
        type: "customer.created",
        data: { object: {} },
      });
      const ignored = await stand.deliver(project.id, unknown);
      assert.deepEqual([ignored.status, (ignored.json as { outcome: string }).outcome], [200, "ignored"]);
      const read = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", order.id) },
      });
      assert.equal(read.body.data.node.state, "PAID");
      const audit = await server.services.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("project_id", "=", project.id)
        .where("action", "=", "order.paid")
        .execute();
      assert.equal(audit.length, 1, "paid once, audited once");
    });

    test("stores the keys sealed and audits only their hint", async () => {
      const { project } = await cardEvent(server.services, stand);
      const { db } = server.services.database;
      const stored = JSON.stringify([
        await db.selectFrom("payment_accounts").selectAll().where("project_id", "=", project.id).execute(),
        await db.selectFrom("audit_events").selectAll().where("project_id", "=", project.id).execute(),
      ]);
      assert.ok(stored.includes(`sk_test_…${stand.secretKey.slice(-4)}`), "the hint is kept");
      for (const secret of [stand.secretKey, stand.webhookSecret, stand.secretKey.slice(8, 24)]) {
        assert.ok(!stored.includes(secret), "no key in the clear, whole or in part");
      }
    });

    test("refunds part, refuses more than is left, then refunds the rest through Stripe and frees the seats", async () => {
      const { project, pass, workshop, token } = await cardEvent(server.services, stand, 2);
      const order = await cardOrder(server.services, project.id, [pass.id, pass.id, workshop.id]);
      const session = sessionOf(stand, await server.services.stripe.checkoutUrl(order, links));
      assert.equal((await stand.pay(session.id)).status, 200);
      const id = globalId("Order", order.id);

      const part = await gql(server.url, refund, { token, variables: { id, amount: 9900 } });
      const partly = part.body.data.refundOrder;
      assert.deepEqual(partly.userErrors, []);
      assert.equal(partly.order.state, "PAID");
      assert.equal(partly.order.refunded.amountMinor, 9900);
      assert.deepEqual(partly.order.refunds, [
        { amountMinor: 9900, state: "SUCCEEDED", reason: "REQUESTED", manual: false },
      ]);
      const refundCall = stand.calls.filter((c) => c.path === "/v1/refunds").at(-1);
      assert.match(
        refundCall?.idempotencyKey ?? "",
        /^refund-/,
        "each refund carries its own Idempotency-Key",
      );

      const tooMuch = await gql(server.url, refund, { token, variables: { id, amount: 50000 } });
      assert.equal(tooMuch.body.data.refundOrder.userErrors[0].code, "CONFLICT");
      const rest = await gql(server.url, refund, { token, variables: { id } });
      const done = rest.body.data.refundOrder;
      assert.deepEqual(done.userErrors, []);
      assert.equal(done.order.state, "REFUNDED");
      assert.equal(done.order.refunded.amountMinor, 59700);
      assert.ok(done.order.tickets.every((t: { status: string }) => t.status === "CANCELLED"));
      const sent = stand.refunds.filter(
        (r) => r.payment_intent === stand.sessions.get(session.id)?.payment_intent,
      );
      assert.deepEqual(
        sent.map((r) => r.amount),
        [9900, 49800],
      );
      // The two passes are free again: someone else buys both.
      const again = await cardOrder(server.services, project.id, [pass.id, pass.id]);
      assert.equal(again.state, "PENDING");
      const twice = await gql(server.url, refund, { token, variables: { id } });
      assert.equal(twice.body.data.refundOrder.userErrors[0].code, "CONFLICT");
    });

    test("two refunds racing never send back more than was paid", async () => {
      const { project, workshop, token } = await cardEvent(server.services, stand);
      const order = await cardOrder(server.services, project.id, [workshop.id]);
      await stand.pay(sessionOf(stand, await server.services.stripe.checkoutUrl(order, links)).id);
      const id = globalId("Order", order.id);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => gql(server.url, refund, { token, variables: { id, amount: 6000 } })),
      );
      const made = answers.filter((a) => a.body.data.refundOrder.userErrors.length === 0);
      assert.equal(made.length, 1);
      const read = await gql(server.url, orderQuery, { token, variables: { id } });
      assert.equal(read.body.data.node.refunded.amountMinor, 6000);
    });

    test("records a bank-transfer refund as made by hand, and refuses refundOrder without orders:write", async () => {
      const { project, owner, ownerId, token } = await cardEvent(server.services, stand);
      await server.services.orders.updateSettings(owner, project.id, {
        holdMinutes: 60,
        bankDetails: "IBAN DE02",
      });
      const transfer = await createTicketType(server.services, owner, project.id, {
        name: "Transfer pass",
        priceMinor: 10000,
        paymentMode: "BANK_TRANSFER",
      });
      const order = await cardOrder(server.services, project.id, [transfer.id]);
      const id = globalId("Order", order.id);
      const unpaid = await gql(server.url, refund, { token, variables: { id } });
      assert.equal(unpaid.body.data.refundOrder.userErrors[0].code, "CONFLICT");
      await server.services.orders.markOrderPaid(owner, { id: order.id });
      const { token: reader } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["orders:read"],
      });
      const refused = await gql(server.url, refund, { token: reader, variables: { id } });
      assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
      const calls = stand.calls.length;
      const done = await gql(server.url, refund, { token, variables: { id, amount: 2500 } });
      assert.deepEqual(done.body.data.refundOrder.order.refunds, [
        { amountMinor: 2500, state: "SUCCEEDED", reason: "REQUESTED", manual: true },
      ]);
      assert.equal(stand.calls.length, calls, "Stripe is not asked for a transfer's refund");
    });

    test("a card payment arriving after the hold lapsed and the seat was sold is refunded on its own", async () => {
      const { project, pass, token } = await cardEvent(server.services, stand, 1);
      const order = await cardOrder(server.services, project.id, [pass.id]);
      const session = sessionOf(stand, await server.services.stripe.checkoutUrl(order, links));
      // The hold lapses while the buyer is on Stripe's page; someone else takes the last seat.
      assert.ok(
        (await server.services.orders.expireLapsed(new Date(Date.now() + 3_600_000).toISOString())) >= 1,
      );
      await cardOrder(server.services, project.id, [pass.id]);
      const late = await stand.pay(session.id);
      assert.equal(late.status, 200);
      const intent = stand.sessions.get(session.id)?.payment_intent;
      assert.deepEqual(
        stand.refunds.filter((r) => r.payment_intent === intent).map((r) => r.amount),
        [24900],
      );
      const read = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", order.id) },
      });
      assert.equal(read.body.data.node.state, "EXPIRED");
      assert.equal(read.body.data.node.paidAt, null);
      // Stripe repeating the notification sends nothing back twice.
      const repeated = await stand.deliver(project.id, JSON.stringify(late.event));
      assert.equal((repeated.json as { outcome: string }).outcome, "replayed");
      assert.equal(stand.refunds.filter((r) => r.payment_intent === intent).length, 1);
    });

    test("a second payment of a paid order and a payment of the wrong amount are refunded on their own", async () => {
      const { project, pass, workshop, token } = await cardEvent(server.services, stand);
      const order = await cardOrder(server.services, project.id, [pass.id]);
      const first = sessionOf(stand, await server.services.stripe.checkoutUrl(order, links));
      // Two tabs: the first session lapses at Stripe, the buyer gets a second, then both get paid.
      first.status = "expired";
      const second = sessionOf(stand, await server.services.stripe.checkoutUrl(order, links));
      assert.notEqual(second.id, first.id);
      first.status = "open";
      assert.equal((await stand.pay(first.id)).status, 200);
      assert.equal((await stand.pay(second.id)).status, 200);
      const refundsOf = (sessionId: string) =>
        stand.refunds.filter((r) => r.payment_intent === stand.sessions.get(sessionId)?.payment_intent);
      assert.deepEqual([refundsOf(first.id).length, refundsOf(second.id).map((r) => r.amount)], [0, [24900]]);
      const read = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", order.id) },
      });
      assert.equal(read.body.data.node.state, "PAID");
      assert.equal(
        read.body.data.node.refunded.amountMinor,
        0,
        "money it never kept is not the order's refund",
      );

      const cheap = await cardOrder(server.services, project.id, [workshop.id]);
      const session = sessionOf(stand, await server.services.stripe.checkoutUrl(cheap, links));
      session.amount_total = 100;
      await stand.pay(session.id);
      assert.deepEqual(
        refundsOf(session.id).map((r) => r.amount),
        [100],
      );
      const unpaid = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", cheap.id) },
      });
      assert.equal(unpaid.body.data.node.state, "PENDING");
    });

    test("a refund Stripe did not answer stays reserved and is asked again with the same key, once", async () => {
      const receiver = await startReceiver();
      try {
        const { project, owner, ownerId, workshop, token } = await cardEvent(server.services, stand);
        const { app } = await createApp(server.services, {
          projectId: project.id,
          ownerId,
          permissions: ["orders:read"],
        });
        await server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["order.refunded"],
        });
        const order = await cardOrder(server.services, project.id, [workshop.id]);
        await stand.pay(sessionOf(stand, await server.services.stripe.checkoutUrl(order, links)).id);
        const id = globalId("Order", order.id);
        const callsBefore = stand.calls.length;
        stand.failNext(2, 500);
        const down = await gql(server.url, refund, { token, variables: { id, amount: 4000 } });
        assert.equal(down.body.errors[0].extensions.code, "SERVICE_UNAVAILABLE");
        const reserved = await gql(server.url, orderQuery, { token, variables: { id } });
        assert.equal(reserved.body.data.node.refunded.amountMinor, 4000, "the amount stays reserved");
        const tooMuch = await gql(server.url, refund, { token, variables: { id, amount: 6000 } });
        assert.equal(tooMuch.body.data.refundOrder.userErrors[0].code, "CONFLICT");
        const keys = stand.calls
          .slice(callsBefore)
          .filter((c) => c.path === "/v1/refunds")
          .map((c) => c.idempotencyKey);
        assert.equal(keys.length, 3);
        // The SDK's own retry and the retry before the next refund all carry the refund's one key.
        assert.equal(new Set(keys).size, 1);
        const rest = await gql(server.url, refund, { token, variables: { id } });
        assert.equal(rest.body.data.refundOrder.order.state, "REFUNDED");
        const intent = [...stand.sessions.values()].find(
          (s) => s.metadata.eventgraph_order === order.id,
        )?.payment_intent;
        assert.deepEqual(
          stand.refunds.filter((r) => r.payment_intent === intent).map((r) => r.amount),
          [4000, 5900],
        );
        const received = await receiver.waitFor(2);
        assert.deepEqual(
          received.map((r) => r.json.type),
          ["order.refunded", "order.refunded"],
        );
      } finally {
        await receiver.close();
      }
    });

    test("Stripe failing while a checkout starts leaves the order pending for the buyer to retry", async () => {
      const { project, workshop } = await cardEvent(server.services, stand);
      const order = await cardOrder(server.services, project.id, [workshop.id]);
      // The SDK retries once itself: two failures in a row reach the buyer.
      stand.failNext(2, 500);
      await assert.rejects(server.services.stripe.checkoutUrl(order, links), { code: "SERVICE_UNAVAILABLE" });
      const url = await server.services.stripe.checkoutUrl(order, links);
      assert.ok(sessionOf(stand, url));
    });
  });
}
