import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import type { Services } from "../../services.js";
import { publicActor } from "../access/actor.js";

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/** A published project selling one bank-transfer ticket type with invoices, self-cancel as told. */
async function shop(services: Services, selfCancelUntil: string | null) {
  const { project, owner } = await createPublishedProject(services);
  await services.orders.updateSettings(owner, project.id, {
    holdMinutes: 60,
    bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
    sellerDetails: "Seller GmbH",
    selfCancelUntil,
  });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Pass",
    priceMinor: 10_000,
    quantity: 2,
    paymentMode: "BANK_TRANSFER",
  });
  return { project, owner, pass };
}

for (const engine of testEngines()) {
  describe(`buyers cancelling their own order (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    async function paidOrder(event: Awaited<ReturnType<typeof shop>>, tickets = 2) {
      const placed = await ctx.services.orders.placeOrder(publicActor, {
        projectId: event.project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: Array.from({ length: tickets }, () => ({
          ticketTypeId: event.pass.id,
          name: "Guest",
          email: uniqueEmail("ticket"),
        })),
      });
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      return placed.order;
    }

    test("refuses while the organizer does not allow it, after the deadline, and for an unpaid order", async () => {
      const closed = await shop(ctx.services, null);
      const order = await paidOrder(closed);
      await assert.rejects(ctx.services.refunds.cancelByBuyer(closed.project.id, order.id), /does not allow/);
      await ctx.services.orders.updateSettings(closed.owner, closed.project.id, {
        holdMinutes: 60,
        bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
        selfCancelUntil: inHours(-1),
      });
      await assert.rejects(ctx.services.refunds.cancelByBuyer(closed.project.id, order.id), /does not allow/);
      const open = await shop(ctx.services, inHours(24));
      const pending = await ctx.services.orders.placeOrder(publicActor, {
        projectId: open.project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [{ ticketTypeId: open.pass.id, name: "Guest", email: uniqueEmail("ticket") }],
      });
      await assert.rejects(
        ctx.services.refunds.cancelByBuyer(open.project.id, pending.order.id),
        /Only a paid order/,
      );
      // Another project's order is not found through this project.
      await assert.rejects(ctx.services.refunds.cancelByBuyer(open.project.id, order.id), /not found/i);
      const still = (await ctx.services.orders.ordersByIds([order.id])).get(order.id);
      assert.equal(still?.state, "PAID");
    });

    test("refunds in full, frees the seats, credits the invoice and is audited; a second cancel changes nothing", async () => {
      const event = await shop(ctx.services, inHours(24));
      const order = await paidOrder(event);
      const cancelled = await ctx.services.refunds.cancelByBuyer(event.project.id, order.id);
      assert.deepEqual([cancelled.state, cancelled.refundedMinor], ["CANCELLED", 20_000]);
      await assert.rejects(ctx.services.refunds.cancelByBuyer(event.project.id, order.id), /paid order/);
      // Both seats are free again: a new order for the last two succeeds.
      await paidOrder(event, 2);
      const issued = (await ctx.services.orders.invoicesOf([order.id])).get(order.id) ?? [];
      assert.deepEqual(
        issued.map((i) => [i.kind, i.totalMinor]),
        [
          ["INVOICE", 20_000],
          ["CREDIT_NOTE", -20_000],
        ],
      );
      const entries = await ctx.database.db
        .selectFrom("audit_events")
        .select(["action", "actor_kind"])
        .where("project_id", "=", event.project.id)
        .where("object_id", "=", order.id)
        .where("action", "=", "order.refunded")
        .execute();
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor_kind]),
        [["order.refunded", "public"]],
      );
    });

    test("the Overview's paid revenue is net of refunds, counted in SQL", async () => {
      const event = await shop(ctx.services, null);
      const partly = await paidOrder(event, 1);
      const fully = await paidOrder(event, 1);
      await ctx.services.refunds.refundOrder(event.owner, { id: partly.id, amountMinor: 2_500 });
      await ctx.services.refunds.refundOrder(event.owner, { id: fully.id });
      const access = await ctx.services.access.require(event.owner, event.project.id);
      const overview = await ctx.services.overview.overview(access, {
        timezone: "Europe/Berlin",
        startsAt: null,
        endsAt: null,
      });
      assert.deepEqual(overview.orders?.paid, 1);
      assert.deepEqual(overview.orders?.paidAmounts, [{ currency: "EUR", minor: 7_500 }]);
      // Bank transfers count as taken through their orders: net of refunds too.
      assert.deepEqual(overview.paid, [{ currency: "EUR", minor: 7_500 }]);
    });

    test("one ticket of several: refused for another order's ticket or after the deadline, else its share refunded by hand once", async () => {
      const event = await shop(ctx.services, inHours(24));
      const order = await paidOrder(event);
      const other = await paidOrder(await shop(ctx.services, inHours(24)), 1);
      const [otherTicket] = await ctx.services.orders.ticketsOf(other);
      assert.ok(otherTicket);
      await assert.rejects(
        ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, otherTicket.id),
        /not found/i,
      );
      const [first, second] = await ctx.services.orders.ticketsOf(order);
      assert.ok(first && second);
      const racing = await Promise.allSettled(
        Array.from({ length: 5 }, () =>
          ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, first.id),
        ),
      );
      assert.ok(
        racing.every((r) => r.status === "fulfilled"),
        "a repeated cancel answers the order as it is",
      );
      const refunds = (await ctx.services.refunds.refundsOf([order.id])).get(order.id) ?? [];
      assert.deepEqual(
        refunds.map((r) => [r.amountMinor, r.state, r.manual]),
        [[10_000, "SUCCEEDED", true]],
      );
      const after = (await ctx.services.orders.ordersByIds([order.id])).get(order.id);
      assert.deepEqual([after?.state, after?.refundedMinor], ["PAID", 10_000]);
      assert.deepEqual(
        (await ctx.services.orders.ticketsOf(order)).map((t) => t.status),
        ["CANCELLED", "REGISTERED"],
      );
      // Its seat is free: the shop's two seats take one more ticket.
      await paidOrder(event, 1);
      const issued = (await ctx.services.orders.invoicesOf([order.id])).get(order.id) ?? [];
      assert.deepEqual(
        issued.map((i) => [i.kind, i.totalMinor, i.document.lines.map((l) => l.quantity)]),
        [
          ["INVOICE", 20_000, [2]],
          ["CREDIT_NOTE", -10_000, [-1]],
        ],
      );
      const entries = await ctx.database.db
        .selectFrom("audit_events")
        .select(["action", "object_id"])
        .where("project_id", "=", event.project.id)
        .where("action", "in", ["order.refunded", "attendee.cancelled", "order.cancelled"])
        .execute();
      assert.deepEqual(entries.map((e) => [e.action, e.object_id]).sort(), [
        ["attendee.cancelled", first.id],
        ["order.refunded", order.id],
      ]);

      await ctx.services.orders.updateSettings(event.owner, event.project.id, {
        holdMinutes: 60,
        bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
        selfCancelUntil: inHours(-1),
      });
      await assert.rejects(
        ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, second.id),
        /does not allow/,
      );
    });

    test("a ticket its buyer cancels frees its seat for the first on the waiting list", async () => {
      const event = await shop(ctx.services, inHours(24));
      const order = await paidOrder(event);
      const entry = await ctx.services.waitingList.join(
        {
          projectId: event.project.id,
          ticketTypeId: event.pass.id,
          name: "Wes Waiting",
          email: uniqueEmail("wait"),
        },
        "10.40.0.1",
      );
      const [first] = await ctx.services.orders.ticketsOf(order);
      assert.ok(first);
      await ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, first.id);
      // The waiting list's worker round (every server process runs it): the freed seat is offered.
      await ctx.services.waitingList.serve();
      const found = await ctx.services.waitingList.findEntry(event.owner, entry.id);
      assert.equal(found?.item.state, "OFFERED");
    });

    test("cancelling every ticket one by one refunds exactly what was paid and closes the order", async () => {
      const event = await shop(ctx.services, inHours(24));
      // A partial refund by the organizer first: the tickets' shares are capped by what is left.
      const order = await paidOrder(event);
      await ctx.services.refunds.refundOrder(event.owner, { id: order.id, amountMinor: 15_000 });
      const tickets = await ctx.services.orders.ticketsOf(order);
      await Promise.allSettled(
        tickets.flatMap((t) => [
          ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, t.id),
          ctx.services.refunds.cancelTicketByBuyer(event.project.id, order.id, t.id),
        ]),
      );
      const closed = (await ctx.services.orders.ordersByIds([order.id])).get(order.id);
      assert.deepEqual([closed?.state, closed?.refundedMinor], ["CANCELLED", 20_000]);
      const refunds = (await ctx.services.refunds.refundsOf([order.id])).get(order.id) ?? [];
      assert.equal(
        refunds.reduce((sum, r) => sum + r.amountMinor, 0),
        20_000,
      );
      const issued = (await ctx.services.orders.invoicesOf([order.id])).get(order.id) ?? [];
      assert.equal(
        issued.reduce((sum, i) => sum + i.totalMinor, 0),
        0,
        "the credit notes take back the invoice exactly",
      );
      // Both seats are free again.
      await paidOrder(event, 2);
    });

    test("two cancels racing refund once", async () => {
      const event = await shop(ctx.services, inHours(24));
      const order = await paidOrder(event, 1);
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () => ctx.services.refunds.cancelByBuyer(event.project.id, order.id)),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      const refunds = (await ctx.services.refunds.refundsOf([order.id])).get(order.id) ?? [];
      assert.deepEqual(
        refunds.map((r) => r.amountMinor),
        [10_000],
      );
    });
  });
}
