import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { bankTransferEvent, order, ordersSuite, sold, ticketsOf } from "../../../test/helpers/bank-orders.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createTicketType } from "../../../test/helpers/factories.js";
import { publicActor } from "../access/actor.js";
import type { PlaceOrderInput } from "./order-placement.js";

for (const engine of testEngines()) {
  describe(`placing an order (${engine.name})`, () => {
    const { ctx, auditActions } = ordersSuite(engine);

    test("refuses garbage: no tickets, too many, another project's ticket type, unknown fields ignored", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services);
      const other = await bankTransferEvent(ctx.services);
      await rejectsWithFieldErrors(ctx.services.orders.placeOrder(publicActor, order(project.id, [])), [
        "tickets",
      ]);
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 21))),
        ["tickets"],
      );
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(other.pass.id, 1))),
        ["tickets"],
      );
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, {
          ...order(project.id, [{ ticketTypeId: pass.id, name: "", email: "not an email" }]),
        }),
        ["tickets.0.name", "tickets.0.email"],
      );
      assert.equal(await sold(ctx.services, other.pass.id), 0);
      assert.equal(await sold(ctx.services, pass.id), 0);
    });

    test("computes the amount and currency on the server, whatever the caller sends", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services);
      const workshop = await createTicketType(ctx.services, owner, project.id, {
        name: "Workshop",
        priceMinor: 5000,
        paymentMode: "BANK_TRANSFER",
      });
      const tampered = {
        ...order(project.id, [...ticketsOf(pass.id, 2), ...ticketsOf(workshop.id, 1)]),
        totalMinor: 1,
        currency: "JPY",
        unitPriceMinor: 0,
      } as PlaceOrderInput;
      const placed = await ctx.services.orders.placeOrder(publicActor, tampered);
      assert.equal(placed.order.totalMinor, 2 * 24900 + 5000);
      assert.equal(placed.order.currency, "EUR");
      assert.equal(placed.order.state, "PENDING");
      assert.equal(placed.order.provider, "BANK_TRANSFER");
      assert.equal(placed.order.paymentReference, placed.order.code);
      assert.match(placed.order.code, new RegExp(`^${project.id}-[0-9A-HJKMNP-TV-Z]{6}$`));
      const holdMs = Date.parse(placed.order.holdExpiresAt ?? "") - Date.parse(placed.order.createdAt);
      assert.equal(holdMs, 15 * 60_000);
      assert.equal(placed.tickets.length, 3);
      assert.ok(placed.tickets.every((t) => t.orderId === placed.order.id && t.status === "REGISTERED"));
      const lines = (await ctx.services.orders.linesOf([placed.order.id])).get(placed.order.id);
      assert.deepEqual(
        lines?.map((l) => [l.ticketTypeName, l.quantity, l.unitPriceMinor]),
        [
          ["Conference pass", 2, 24900],
          ["Workshop", 1, 5000],
        ],
      );
      assert.equal(await sold(ctx.services, pass.id), 2);
      assert.deepEqual(await auditActions(placed.order.id), ["order.created"]);
    });

    test("refuses tickets paid different ways, in two currencies, or by a transfer the event does not take", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services);
      const door = await createTicketType(ctx.services, owner, project.id, { paymentMode: "AT_DOOR" });
      const dollars = await createTicketType(ctx.services, owner, project.id, {
        currency: "USD",
        paymentMode: "BANK_TRANSFER",
      });
      const offPage = await createTicketType(ctx.services, owner, project.id, { paymentMode: "NONE" });
      for (const other of [door, dollars]) {
        await rejectsWithFieldErrors(
          ctx.services.orders.placeOrder(
            publicActor,
            order(project.id, [...ticketsOf(pass.id, 1), ...ticketsOf(other.id, 1)]),
          ),
          ["tickets"],
        );
      }
      await assert.rejects(
        ctx.services.orders.placeOrder(
          publicActor,
          order(project.id, [...ticketsOf(pass.id, 1), ...ticketsOf(offPage.id, 1)]),
        ),
        { code: "CONFLICT", message: /is not on sale here/ },
      );
      const plain = await createPublishedProject(ctx.services);
      const noBank = await createTicketType(ctx.services, plain.owner, plain.project.id, {
        paymentMode: "BANK_TRANSFER",
      });
      await assert.rejects(
        ctx.services.orders.placeOrder(publicActor, order(plain.project.id, ticketsOf(noBank.id, 1))),
        {
          code: "CONFLICT",
          message: /does not take bank transfers/,
        },
      );
      assert.equal(await sold(ctx.services, pass.id), 0);
    });

    test("a free order is paid at once and keeps its seats; a door order is pending without a hold", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const free = await createTicketType(ctx.services, owner, project.id, { priceMinor: 0 });
      const door = await createTicketType(ctx.services, owner, project.id, { paymentMode: "AT_DOOR" });
      const freeOrder = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(free.id, 2)),
      );
      assert.deepEqual(
        [freeOrder.order.state, freeOrder.order.provider, freeOrder.order.totalMinor],
        ["PAID", "FREE", 0],
      );
      assert.equal(freeOrder.order.holdExpiresAt, null);
      const doorOrder = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, ticketsOf(door.id, 1)),
      );
      assert.deepEqual([doorOrder.order.state, doorOrder.order.provider], ["PENDING", "AT_DOOR"]);
      assert.equal(doorOrder.order.holdExpiresAt, null);
      // No hold to lapse: the sweep leaves it pending, its seat taken.
      await ctx.services.orders.expireLapsed();
      assert.equal((await ctx.services.orders.findOrder(owner, doorOrder.order.id))?.item.state, "PENDING");
      assert.equal(await sold(ctx.services, door.id), 1);
    });

    test("says how many seats are left, and never sells past the capacity", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services, 3);
      await assert.rejects(
        ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 4))),
        {
          code: "CONFLICT",
          message: /Only 3 "Conference pass" tickets are left/,
        },
      );
      await ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 3)));
      await assert.rejects(
        ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 1))),
        {
          code: "CONFLICT",
          message: /sold out/,
        },
      );
      assert.equal(await sold(ctx.services, pass.id), 3);
    });

    test("200 buyers racing for the last 10 seats: exactly 10 tickets are held", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services, 10);
      // A buyer told the server is busy (PostgreSQL's pool wait ran out) tries again, as the page says.
      const buy = async (input: PlaceOrderInput): Promise<unknown> => {
        for (;;) {
          try {
            return await ctx.services.orders.placeOrder(publicActor, input);
          } catch (error) {
            if ((error as { code?: string }).code !== "SERVICE_UNAVAILABLE") throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      };
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, () => buy(order(project.id, ticketsOf(pass.id, 1)))),
      );
      const placed = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected");
      assert.equal(placed.length, 10);
      assert.deepEqual(
        [
          ...new Set(
            refused.map((r) => `${(r.reason as { code?: string }).code}: ${(r.reason as Error).message}`),
          ),
        ],
        ['CONFLICT: The ticket type "Conference pass" is sold out'],
      );
      assert.equal(await sold(ctx.services, pass.id), 10);
      const rows = await ctx.database.db
        .selectFrom("attendees")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("ticket_type_id", "=", pass.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(rows.n), 10);
    });

    test("a repeated checkout form places one order", async () => {
      const { project, pass } = await bankTransferEvent(ctx.services);
      const input = { ...order(project.id, ticketsOf(pass.id, 2)), idempotencyKey: "form-key-0123456789" };
      const [a, b] = await Promise.all([
        ctx.services.orders.placeOrder(publicActor, input),
        ctx.services.orders.placeOrder(publicActor, input),
      ]);
      assert.equal(a.order.id, b.order.id);
      assert.deepEqual([a.repeat, b.repeat].sort(), [false, true]);
      assert.equal(await sold(ctx.services, pass.id), 2);
    });

    test("a project with orders can be deleted, its orders and lines with it", async () => {
      const { project, owner, pass } = await bankTransferEvent(ctx.services);
      await ctx.services.orders.placeOrder(publicActor, order(project.id, ticketsOf(pass.id, 2)));
      await ctx.services.projects.delete(owner, project.id, project.id);
      const left = await ctx.database.db
        .selectFrom("order_lines")
        .innerJoin("orders", "orders.id", "order_lines.order_id")
        .select("orders.id")
        .where("orders.project_id", "=", project.id)
        .execute();
      assert.deepEqual(left, []);
    });
  });
}
