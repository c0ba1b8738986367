import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import type { Services } from "../../services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { type Actor, publicActor } from "../access/actor.js";
import type { PlaceOrderInput } from "./order-placement.js";

const bankDetails = "Eventgraph Test GmbH\nIBAN DE02 1203 0000 0000 2020 51\nBIC BYLADEM1001";

/** A published project taking bank transfers, with a ticket type of `quantity` seats at €249. */
async function bankTransferEvent(services: Services, quantity = 100) {
  const { project, owner } = await createPublishedProject(services);
  await services.orders.updateSettings(owner, project.id, { holdMinutes: 15, bankDetails });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Conference pass",
    priceMinor: 24900,
    quantity,
    paymentMode: "BANK_TRANSFER",
  });
  return { project, owner, pass };
}

function ticketsOf(ticketTypeId: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    ticketTypeId,
    name: `Guest ${i + 1}`,
    email: uniqueEmail("ticket"),
  }));
}

function order(projectId: string, tickets: PlaceOrderInput["tickets"]): PlaceOrderInput {
  return { projectId, buyerName: "Bea Buyer", buyerEmail: uniqueEmail("buyer"), tickets };
}

async function sold(services: Services, ticketTypeId: string): Promise<number> {
  return (await services.tickets.soldCounts([ticketTypeId])).get(ticketTypeId) ?? 0;
}

for (const engine of testEngines()) {
  describe(`orders (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    /** Moves an order's hold (and its tickets') into the past, as if its minutes had gone by. */
    async function lapse(orderId: string) {
      const past = new Date(Date.now() - 60_000).toISOString();
      const { db } = ctx.database;
      await db.updateTable("orders").set({ hold_expires_at: past }).where("id", "=", orderId).execute();
      await db
        .updateTable("attendees")
        .set({ held_until: past })
        .where("order_id", "=", orderId)
        .where("held_until", "is not", null)
        .execute();
    }

    async function auditActions(orderId: string): Promise<string[]> {
      const rows = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("object_id", "=", orderId)
        .orderBy("occurred_at")
        .execute();
      return rows.map((r) => r.action);
    }

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
