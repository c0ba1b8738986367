import type { Tx } from "../../db/database.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import type { Actor } from "../access/actor.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { invoiceSource, orderSettingsOf, releaseCode } from "./order-placement.js";
import { type Order, presentOrder } from "./orders.model.js";
import { type OrderRow, ordersRepository as repo } from "./orders.repository.js";

/**
 * Cancels an order inside the caller's transaction (the caller holds its lock and has refunded what
 * was paid, if anything: refunds.ts): its active tickets are cancelled with every effect of a
 * cancellation (their seats free for the waiting list), its code's uses given back, and a credit
 * note takes back what its invoice has not yet. The one place of these effects for every cancel.
 */
export async function closeOrderIn(
  deps: { changes: ProjectChanges; tickets: OrderTickets; invoicing: Invoicing },
  trx: Tx,
  actor: Actor | undefined,
  row: OrderRow,
  now: string,
): Promise<Order> {
  const { project_id: projectId, id } = row;
  await deps.tickets.cancel(trx, actor, projectId, id, now);
  await releaseCode(trx, row, now);
  const patch = { state: "CANCELLED" as const, hold_expires_at: null, closed_at: now, updated_at: now };
  await repo.update(trx, projectId, id, patch);
  await deps.changes.event(trx, actor, objectEvent(projectId, "Order", id, "cancelled"));
  const cancelled = presentOrder({ ...row, ...patch });
  await deps.invoicing.creditIn(trx, actor, await invoiceSource(trx, orderSettingsOf, cancelled));
  return cancelled;
}
