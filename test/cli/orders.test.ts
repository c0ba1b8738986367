import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { runCliInProcess as eventgraph } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`eventgraph orders list and refund (${engine.name})`, () => {
    let ctx: TestContext;
    let env: Record<string, string>;
    before(async () => {
      ctx = await createTestContext(engine);
      env = { DATABASE_URL: ctx.config.databaseUrl };
    });
    after(() => ctx.close());

    test("lists a project's orders by state; refuses an unknown state and project", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const door = await createTicketType(ctx.services, owner, project.id, { paymentMode: "AT_DOOR" });
      const placed = await ctx.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [{ ticketTypeId: door.id, name: "Ann", email: uniqueEmail() }],
      });
      const listed = await eventgraph(["orders", "list", "--project", project.id, "--json"], env);
      assert.equal(listed.code, 0, listed.stderr);
      const { orders } = JSON.parse(listed.stdout);
      assert.deepEqual(
        orders.map((o: { code: string; state: string; totalMinor: number }) => [
          o.code,
          o.state,
          o.totalMinor,
        ]),
        [[placed.order.code, "PENDING", 9900]],
      );
      const paid = await eventgraph(["orders", "list", "--project", project.id, "--state", "paid"], env);
      assert.equal(paid.stdout.trim(), "No orders.");
      assert.equal(
        (await eventgraph(["orders", "list", "--project", project.id, "--state", "LOST"], env)).code,
        1,
      );
      assert.equal((await eventgraph(["orders", "list", "--project", "zzzz"], env)).code, 1);
      assert.equal((await eventgraph(["orders", "list"], env)).code, 2);
    });

    test("refunds part of a paid order by hand, then the rest; refuses more, garbage and an unknown order", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const door = await createTicketType(ctx.services, owner, project.id, { paymentMode: "AT_DOOR" });
      const { order } = await ctx.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [{ ticketTypeId: door.id, name: "Ann", email: uniqueEmail() }],
      });
      const unpaid = await eventgraph(["orders", "refund", "--order", order.id], env);
      assert.equal(unpaid.code, 1);
      await ctx.services.orders.markOrderPaid(owner, { id: order.id });
      const part = await eventgraph(
        ["orders", "refund", "--order", order.id, "--amount", "900", "--json"],
        env,
      );
      assert.equal(part.code, 0, part.stderr);
      assert.deepEqual(JSON.parse(part.stdout), {
        id: order.id,
        code: order.code,
        state: "PAID",
        refundedMinor: 900,
      });
      assert.equal(
        (await eventgraph(["orders", "refund", "--order", order.id, "--amount", "9001"], env)).code,
        1,
      );
      assert.equal(
        (await eventgraph(["orders", "refund", "--order", order.id, "--amount", "-5"], env)).code,
        2,
      );
      assert.equal((await eventgraph(["orders", "refund", "--order", "nope"], env)).code, 1);
      const rest = await eventgraph(["orders", "refund", "--order", order.id], env);
      assert.match(rest.stdout, /€99\.00 refunded in all \(REFUNDED\)/);
    });
  });
}
