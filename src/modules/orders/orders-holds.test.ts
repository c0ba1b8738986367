import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bankTransferEvent, order, ordersSuite, sold, ticketsOf } from "../../../test/helpers/bank-orders.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { type Actor, publicActor } from "../access/actor.js";

for (const engine of testEngines()) {
  describe(`order holds and payment (${engine.name})`, () => {
    const { ctx, lapse, auditActions } = ordersSuite(engine);

    test("a lapsed hold frees its seats at once, before the worker expires the order", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services, 2);
      const first = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 2)),
      );
      await assert.rejects(
        ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 1))),
        {
          code: "CONFLICT",
        },
      );
      await lapse(first.order.id);
      assert.equal(await sold(ctx.services, pass.id), 0);
      // The same people try again: the checkout expires the lapsed order first, freeing their emails.
      const again = await ctx.services.orders.placeOrder(publicActor, {
        ...order(
          project.id,
          first.tickets.map((t) => ({ ticketTypeId: pass.id, name: t.name, email: t.email })),
        ),
      });
      assert.equal(again.order.state, "PENDING");
      const owner = (await ctx.services.orders.findOrder({ kind: "system" }, first.order.id))?.item;
      assert.equal(owner?.state, "EXPIRED");
      assert.deepEqual(await auditActions(first.order.id), ["order.created", "order.expired"]);
      assert.equal(await sold(ctx.services, pass.id), 2);
    });

    test("the expiry worker's sweep expires lapsed orders once, and leaves held ones alone", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services);
      const lapsed = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 2)),
      );
      const held = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 1)),
      );
      await lapse(lapsed.order.id);
      const sweeps = await Promise.all([
        ctx.services.orders.expireLapsed(),
        ctx.services.orders.expireLapsed(),
      ]);
      assert.ok(sweeps.reduce((a, b) => a + b, 0) >= 1);
      const system: Actor = { kind: "system" };
      assert.equal((await ctx.services.orders.findOrder(system, lapsed.order.id))?.item.state, "EXPIRED");
      assert.equal((await ctx.services.orders.findOrder(system, held.order.id))?.item.state, "PENDING");
      const tickets = await ctx.services.orders.ticketsOf(lapsed.order);
      assert.deepEqual(
        tickets.map((t) => t.status),
        ["CANCELLED", "CANCELLED"],
      );
      assert.deepEqual(await auditActions(lapsed.order.id), ["order.created", "order.expired"]);
      assert.equal(await sold(ctx.services, pass.id), 1);
    });

    test("marking paid keeps the seats for good and is idempotent", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services);
      const placed = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 2)),
      );
      const [a, b] = await Promise.all([
        ctx.services.orders.markOrderPaid(owner, { id: placed.order.id }),
        ctx.services.orders.markOrderPaid(owner, { id: placed.order.id }),
      ]);
      assert.deepEqual([a.state, b.state], ["PAID", "PAID"]);
      assert.equal(a.paidAt, b.paidAt);
      assert.equal(a.holdExpiresAt, null);
      assert.deepEqual(await auditActions(placed.order.id), ["order.created", "order.paid"]);
      // Paid: no lapse of time frees the seats.
      await lapse(placed.order.id);
      await ctx.services.orders.expireLapsed();
      assert.equal((await ctx.services.orders.findOrder(owner, placed.order.id))?.item.state, "PAID");
      assert.equal(await sold(ctx.services, pass.id), 2);
      await assert.rejects(ctx.services.refunds.cancelOrder(owner, { id: "nope" }), { code: "NOT_FOUND" });
    });

    test("cancelling frees the seats, is idempotent, and a cancelled order cannot be paid", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services, 2);
      const placed = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 2)),
      );
      await ctx.services.orders.markOrderPaid(owner, { id: placed.order.id });
      const cancelled = await ctx.services.refunds.cancelOrder(owner, { id: placed.order.id });
      assert.equal(cancelled.state, "CANCELLED");
      assert.equal(
        (await ctx.services.refunds.cancelOrder(owner, { id: placed.order.id })).state,
        "CANCELLED",
      );
      assert.equal(await sold(ctx.services, pass.id), 0);
      await assert.rejects(ctx.services.orders.markOrderPaid(owner, { id: placed.order.id }), {
        code: "CONFLICT",
      });
      // Paid by bank transfer: cancelling it records the money as sent back by hand, then cancels.
      assert.equal(cancelled.refundedMinor, cancelled.totalMinor);
      // The refund and the cancel share a transaction and may share a timestamp: compared as a set.
      assert.deepEqual((await auditActions(placed.order.id)).sort(), [
        "order.cancelled",
        "order.created",
        "order.paid",
        "order.refunded",
      ]);
    });

    test("a late payment is accepted while its seats are free, and refused once they are sold", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services, 2);
      const late = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 1)),
      );
      await lapse(late.order.id);
      await ctx.services.orders.expireLapsed();
      const paid = await ctx.services.orders.markOrderPaid(owner, { id: late.order.id });
      assert.equal(paid.state, "PAID");
      assert.deepEqual(
        (await ctx.services.orders.ticketsOf(paid)).map((t) => t.status),
        ["REGISTERED"],
      );
      assert.equal(await sold(ctx.services, pass.id), 1);

      const tooLate = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 1)),
      );
      await lapse(tooLate.order.id);
      await ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 1)));
      await assert.rejects(ctx.services.orders.markOrderPaid(owner, { id: tooLate.order.id }), {
        code: "CONFLICT",
        message: /hold lapsed/,
      });
      assert.equal(await sold(ctx.services, pass.id), 2);
    });

    test("an expiry racing a payment ends paid once, with its seats", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services, 2);
      for (let round = 0; round < 5; round++) {
        const placed = await ctx.services.orders.placeOrder(
          publicActor,
          order(project.id, ticketsOf(pass.id, 2)),
        );
        await lapse(placed.order.id);
        const [paid] = await Promise.all([
          ctx.services.orders.markOrderPaid(owner, { id: placed.order.id }),
          ctx.services.orders.expireLapsed(),
        ]);
        assert.equal(paid.state, "PAID");
        const tickets = await ctx.services.orders.ticketsOf(paid);
        assert.deepEqual(
          tickets.map((t) => t.status),
          ["REGISTERED", "REGISTERED"],
        );
        assert.equal(await sold(ctx.services, pass.id), 2);
        const actions = await auditActions(placed.order.id);
        assert.equal(actions.filter((a) => a === "order.paid").length, 1);
        await ctx.services.refunds.cancelOrder(owner, { id: placed.order.id });
      }
    });
  });
}
