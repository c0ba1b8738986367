import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bankTransferEvent, order, ordersSuite, ticketsOf } from "../../../test/helpers/bank-orders.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { appActor, createPublishedProject } from "../../../test/helpers/factories.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";

for (const engine of testEngines()) {
  describe(`who may see and change orders (${engine.name})`, () => {
    const { ctx } = ordersSuite(engine);

    test("apps need orders:read to see orders and orders:write to change them; other projects see nothing", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services);
      const placed = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(pass.id, 1)),
      );
      const id = placed.order.id;
      const blind = appActor(project.id, ["attendees:read", "attendees:write"]);
      const reader = appActor(project.id, ["orders:read"]);
      const writer = appActor(project.id, ["orders:read", "orders:write"]);
      const stranger = appActor((await createPublishedProject(ctx.services)).project.id, [
        "orders:read",
        "orders:write",
      ]);
      for (const actor of [blind, stranger, publicActor]) {
        assert.equal(await ctx.services.orders.findOrder(actor, id), undefined);
        await assert.rejects(ctx.services.orders.markOrderPaid(actor, { id }), { code: "NOT_FOUND" });
        await assert.rejects(ctx.services.refunds.cancelOrder(actor, { id }), { code: "NOT_FOUND" });
      }
      assert.equal((await ctx.services.orders.findOrder(reader, id))?.item.id, id);
      await assert.rejects(ctx.services.orders.markOrderPaid(reader, { id }), { code: "FORBIDDEN" });
      assert.equal((await ctx.services.orders.markOrderPaid(writer, { id })).state, "PAID");
      const readerAccess = await ctx.services.access.require(reader, project.id);
      assert.equal(await ctx.services.orders.countOrders(readerAccess, { state: "PAID" }), 1);
      const blindAccess = await ctx.services.access.require(blind, project.id);
      await assert.rejects(ctx.services.orders.countOrders(blindAccess, {}), { code: "FORBIDDEN" });
      const page = await ctx.services.orders.listOrders(readerAccess, {}, resolvePageArgs({ first: 10 }));
      assert.deepEqual(
        page.items.map((o) => o.code),
        [placed.order.code],
      );
    });
  });
}
