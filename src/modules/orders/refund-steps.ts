import type { Db, Tx } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import type { Actor } from "../access/actor.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { closeOrderIn } from "./order-closing.js";
import { invoiceSource, orderSettingsOf } from "./order-placement.js";
import { type Order, presentOrder } from "./orders.model.js";
import { type OrderRow, ordersRepository as orders } from "./orders.repository.js";
import { type RefundRow, refundsRepository as repo } from "./refunds.repository.js";
import type { StripeAccounts } from "./stripe/stripe-account.js";
import type { StripeGateway } from "./stripe/stripe-gateway.js";

/** What a refund cancels once it is made: nothing (an amount), one ticket, or the whole order. */
export interface RefundCancels {
  attendeeId: string | null;
  order: boolean;
}

/** What is still refundable of an order: what was paid less what was refunded or is being refunded. */
export function refundableOf(row: Pick<OrderRow, "paid_at" | "total_minor" | "refunded_minor">): number {
  return row.paid_at === null ? 0 : Number(row.total_minor) - Number(row.refunded_minor);
}

export interface RefundStepDeps {
  db: Db;
  changes: ProjectChanges;
  tickets: OrderTickets;
  invoicing: Invoicing;
  accounts: StripeAccounts;
  gateway: StripeGateway;
}

/**
 * The one path of every refund of an order (refunds.ts, docs/payments.md): an organizer's refund of
 * an amount, and every cancellation of a paid order or of one of its tickets, by the organizer or
 * the buyer. Three steps, so that no crash and no race sends back more than was paid nor cancels
 * without the money going back: `reserveIn` reserves the amount under the order's lock
 * (`refunded_minor` grows, a PENDING row names what it cancels), `execute` asks Stripe after the
 * commit with the row's id as Idempotency-Key, and `settleIn` applies the answer: the refund made,
 * then what it cancels (tickets, seats, credit note). Money paid outside Eventgraph is recorded as
 * sent back by hand, settled in the reserving transaction.
 */
export function createRefundSteps(deps: RefundStepDeps) {
  const { db, changes, tickets, invoicing } = deps;
  const areas = areasWrittenUnder("orders:write");

  /** Cancels the refund's ticket; when it was the order's last active one, the order closes too. */
  async function cancelTicketIn(trx: Tx, actor: Actor | undefined, order: OrderRow, refund: RefundRow) {
    const now = nowIso();
    const attendeeId = refund.attendee_id ?? "";
    const all = await tickets.list(trx, order.project_id, order.id);
    const ticket = all.find((t) => t.id === attendeeId);
    await tickets.cancelOne(
      trx,
      actor,
      { projectId: order.project_id, orderId: order.id, id: attendeeId },
      now,
    );
    if (ticket) {
      const source = await invoiceSource(trx, orderSettingsOf, presentOrder(order));
      await invoicing.creditTicketIn(trx, actor, source, ticket.ticketTypeId, Number(refund.amount_minor));
    }
    const left = all.filter((t) => t.id !== attendeeId && t.status === "REGISTERED");
    return left.length === 0 ? closeOrderIn(deps, trx, actor, order, now) : presentOrder(order);
  }

  /**
   * Marks a refund made, inside a transaction, and applies what it cancels. A refund settled already
   * (two callers asked Stripe for the same PENDING row) changes nothing the second time.
   */
  async function settleIn(
    trx: Tx,
    actor: Actor | undefined,
    refund: RefundRow,
    providerRefundId: string | null,
  ): Promise<Order> {
    const now = nowIso();
    const order = await orders.lock(trx, refund.project_id, refund.order_id);
    if (!order) throw notFound("Order");
    const current = await repo.find(trx, refund.project_id, refund.id);
    if (current && current.state !== "PENDING") {
      changes.unchanged(trx);
      return presentOrder(order);
    }
    await repo.update(trx, refund.project_id, refund.id, {
      state: "SUCCEEDED",
      provider_refund_id: providerRefundId,
      updated_at: now,
    });
    await changes.event(trx, actor, {
      ...objectEvent(refund.project_id, "Order", order.id, "refunded"),
      changed: ["refunds"],
      values: {
        refundId: refund.id,
        amountMinor: Number(refund.amount_minor),
        reason: refund.reason,
        ...(refund.attendee_id ? { attendeeId: refund.attendee_id } : {}),
      },
    });
    if (refund.reason !== "REQUESTED" || order.state !== "PAID") return presentOrder(order);
    if (Number(refund.cancels_order) === 1) return closeOrderIn(deps, trx, actor, order, now);
    if (refund.attendee_id) return cancelTicketIn(trx, actor, order, refund);
    const source = await invoiceSource(trx, orderSettingsOf, presentOrder(order));
    if (refundableOf(order) > 0) {
      // A partial refund names an amount, not tickets: its credit note takes back that amount.
      await invoicing.creditAmountIn(trx, actor, source, Number(refund.amount_minor));
      return presentOrder(order);
    }
    // Refunded in full by amount: its tickets are cancelled, and what its invoice has not been credited yet.
    await tickets.cancel(trx, actor, refund.project_id, order.id, now);
    const patch = { state: "REFUNDED" as const, closed_at: now, updated_at: now };
    await orders.update(trx, refund.project_id, order.id, patch);
    const after = presentOrder({ ...order, ...patch });
    await invoicing.creditIn(trx, actor, { ...source, order: after });
    return after;
  }

  /**
   * Reserves a refund of `amountMinor` of the order `row` (locked by the caller, which checked the
   * amount is at most what is left) that cancels what `cancels` says once made. Money paid outside
   * Eventgraph is recorded as sent back at once: settled here, and `order` is the result.
   */
  async function reserveIn(
    trx: Tx,
    actor: Actor | undefined,
    row: OrderRow,
    amountMinor: number,
    cancels: RefundCancels,
  ): Promise<{ refund: RefundRow; order: Order | undefined }> {
    const now = nowIso();
    const refund: RefundRow = {
      id: newId(),
      project_id: row.project_id,
      order_id: row.id,
      amount_minor: amountMinor,
      state: "PENDING",
      reason: "REQUESTED",
      provider_payment_id: row.provider === "STRIPE" ? row.provider_payment_id : null,
      provider_refund_id: null,
      attendee_id: cancels.attendeeId,
      cancels_order: cancels.order ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(trx, refund);
    await orders.update(trx, row.project_id, row.id, {
      refunded_minor: Number(row.refunded_minor) + amountMinor,
      updated_at: now,
    });
    if (refund.provider_payment_id === null)
      return { refund, order: await settleIn(trx, actor, refund, null) };
    return { refund, order: undefined };
  }

  /** Gives a refund's reserved amount back after the provider refused it for good. */
  async function failIn(trx: Tx, refund: RefundRow): Promise<void> {
    const order = await orders.lock(trx, refund.project_id, refund.order_id);
    const current = await repo.find(trx, refund.project_id, refund.id);
    if (current?.state !== "PENDING") return;
    await repo.update(trx, refund.project_id, refund.id, { state: "FAILED", updated_at: nowIso() });
    if (order && refund.reason === "REQUESTED") {
      const refunded = Number(order.refunded_minor) - Number(refund.amount_minor);
      await orders.update(trx, refund.project_id, order.id, {
        refunded_minor: refunded,
        updated_at: nowIso(),
      });
    }
  }

  /**
   * Asks Stripe for a PENDING refund and settles it. A refusal (a 4xx) fails it and frees its amount;
   * no answer (timeout, 5xx) leaves it PENDING, amount reserved and nothing cancelled, to be asked
   * again: Stripe may have made it, and the same Idempotency-Key makes sure it is made once.
   */
  async function execute(actor: Actor | undefined, refund: RefundRow): Promise<Order> {
    const secrets = await deps.accounts.secretsOf(refund.project_id);
    try {
      if (!secrets || !refund.provider_payment_id) {
        throw new AppError(
          ErrorCode.CONFLICT,
          "The refund was not made: the project's Stripe keys are not set",
          {
            fieldErrors: [{ field: ["payment"], message: "the project's Stripe keys are not set" }],
          },
        );
      }
      const made = await deps.gateway.refund(secrets.secretKey, {
        paymentId: refund.provider_payment_id,
        amountMinor: Number(refund.amount_minor),
        idempotencyKey: `refund-${refund.id}`,
      });
      return await changes.write(
        db,
        actor,
        refund.project_id,
        (trx) => settleIn(trx, actor, refund, made.id),
        areas,
      );
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.CONFLICT) {
        await changes.write(db, actor, refund.project_id, (trx) => failIn(trx, refund), areas);
      }
      throw error;
    }
  }

  return { reserveIn, execute };
}
