import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { runCliInProcess as eventgraph } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import {
  createPublishedProject,
  createSellingProject,
  createTicketType,
  uniqueEmail,
} from "../helpers/factories.js";
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

    test("exports a project's orders as CSV or JSON with their tax and invoice numbers; refuses a bad format", async () => {
      const { project, owner } = await createSellingProject(ctx.services, {
        taxRateBasisPoints: 1_900,
        sellerDetails: "CLI Conf GmbH",
      });
      const pass = await createTicketType(ctx.services, owner, project.id, {
        priceMinor: 11_900,
        paymentMode: "BANK_TRANSFER",
      });
      const placed = await ctx.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "=cmd|' /C calc'!A0",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [{ ticketTypeId: pass.id, name: "Ann", email: uniqueEmail() }],
      });
      await ctx.services.orders.markOrderPaid(owner, { id: placed.order.id });
      const json = await eventgraph(["orders", "export", "--project", project.id, "--format", "json"], env);
      assert.equal(json.code, 0, json.stderr);
      const { orders } = JSON.parse(json.stdout);
      assert.deepEqual(
        orders.map(
          (o: { code: string; state: string; totalMinor: number; taxMinor: number; invoices: string }) => [
            o.code,
            o.state,
            o.totalMinor,
            o.taxMinor,
            o.invoices,
          ],
        ),
        [[placed.order.code, "PAID", 11_900, 1_900, "INV-0001"]],
      );
      const csv = await eventgraph(["orders", "export", "--project", project.id], env);
      assert.equal(csv.code, 0, csv.stderr);
      const [header, row] = csv.stdout.trim().split("\n");
      assert.match(header ?? "", /^code,state,buyer_name,buyer_email,/);
      // A name a spreadsheet would run as a formula is defused.
      assert.ok(row?.includes(`${placed.order.code},PAID,'=cmd|' /C calc'!A0,`), row);
      assert.equal(
        (await eventgraph(["orders", "export", "--project", project.id, "--format", "xml"], env)).code,
        2,
      );
    });
  });
}
