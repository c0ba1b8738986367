import type { PlaceOrderInput } from "../../src/modules/orders/order-placement.js";
import type { Services } from "../../src/services.js";
import type { TestEngine } from "./engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "./factories.js";
import { testContextPerSuite } from "./test-services.js";

// Bank-transfer orders placed through the services, shared by the orders module's tests of placing,
// holds and payment, and access.

const bankDetails = "Eventgraph Test GmbH\nIBAN DE02 1203 0000 0000 2020 51\nBIC BYLADEM1001";

/** A published project taking bank transfers, with a ticket type of `quantity` seats at €249. */
export async function bankTransferEvent(services: Services, quantity = 100) {
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

/** `count` tickets of one type, each for its own guest. */
export function ticketsOf(ticketTypeId: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    ticketTypeId,
    name: `Guest ${i + 1}`,
    email: uniqueEmail("ticket"),
  }));
}

/** An order of `tickets` by a buyer of their own. */
export function order(projectId: string, tickets: PlaceOrderInput["tickets"]): PlaceOrderInput {
  return { projectId, buyerName: "Bea Buyer", buyerEmail: uniqueEmail("buyer"), tickets };
}

/** How many seats of a ticket type are taken (held or sold). */
export async function sold(services: Services, ticketTypeId: string): Promise<number> {
  return (await services.tickets.soldCounts([ticketTypeId])).get(ticketTypeId) ?? 0;
}

/**
 * A TestContext of `engine` for the enclosing `describe` (see perSuite), with its order rows: time
 * passing on a hold, and an order's audit trail.
 */
export function ordersSuite(engine: TestEngine) {
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

  /** The actions audited on an order, oldest first. */
  async function auditActions(orderId: string): Promise<string[]> {
    const rows = await ctx.database.db
      .selectFrom("audit_events")
      .select("action")
      .where("object_id", "=", orderId)
      .orderBy("occurred_at")
      .execute();
    return rows.map((r) => r.action);
  }
  return { ctx, lapse, auditActions };
}
