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
      assert.deepEqual([cancelled.state, cancelled.refundedMinor], ["REFUNDED", 20_000]);
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
