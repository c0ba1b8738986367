import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import type { RefundReason } from "../../db/schema.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, publicActor } from "../access/actor.js";
import { orderVisible } from "../access/policy.js";
import { requireRowPermission, writeRow } from "../access/row-access.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { closeOrderIn } from "./order-closing.js";
import { orderSettingsOf } from "./order-placement.js";
import { conflict, type Order, presentLine, presentOrder, ticketRefundMinor } from "./orders.model.js";
import { type OrderRow, ordersRepository as orders } from "./orders.repository.js";
import { createRefundSteps, refundableOf } from "./refund-steps.js";
import { type RefundRow, refundsRepository as repo } from "./refunds.repository.js";
import type { StripeAccounts } from "./stripe/stripe-account.js";
import type { StripeGateway } from "./stripe/stripe-gateway.js";

/** One refund of an order, as the API and the dashboard show it. */
export interface Refund {
  id: string;
  orderId: string;
  amountMinor: number;
  state: RefundRow["state"];
  reason: RefundReason;
  /** Whether money went back through the provider (Stripe) or was sent back by hand. */
  manual: boolean;
  createdAt: string;
}

function presentRefund(row: RefundRow): Refund {
  return {
    id: row.id,
    orderId: row.order_id,
    amountMinor: Number(row.amount_minor),
    state: row.state,
    reason: row.reason,
    manual: row.provider_payment_id === null,
    createdAt: row.created_at,
  };
}

const refundInput = z.object({
  id: idText,
  /** Minor units; omitted: everything not refunded yet. */
  amountMinor: z
    .number()
    .int("must be a whole number of minor units")
    .positive("must be more than 0")
    .nullish(),
});

const byId = z.object({ id: idText });

/** A cancel that waited on Stripe in vain: nothing was cancelled, and the refund is asked again on the next try. */
function stillPaid(): AppError {
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    "Stripe did not answer: the order stays paid and nothing was cancelled. Try again; the refund is made once.",
  );
}

/**
 * Refunds and cancellations of orders (docs/payments.md): an organizer or app refunds part or all
 * of a paid order or cancels it, a buyer cancels their paid order or one ticket of it. Every one
 * goes through refund-steps.ts: a paid amount goes back through the order's provider (Stripe's
 * Refunds API, or recorded as sent back by hand) before anything is cancelled, so a provider that
 * does not answer leaves the order paid and its tickets valid.
 */
export function createRefunds(deps: {
  db: Db;
  access: AccessService;
  changes: ProjectChanges;
  tickets: OrderTickets;
  invoicing: Invoicing;
  accounts: StripeAccounts;
  gateway: StripeGateway;
}) {
  const { db, access, changes } = deps;
  const writer = { db, access, changes };
  const areas = areasWrittenUnder("orders:write");
  const { reserveIn, execute } = createRefundSteps(deps);

  /** Asks the provider again for an order's PENDING refunds; throws the first failure after trying all. */
  async function retryPending(actor: Actor | undefined, projectId: string, orderId: string): Promise<void> {
    let failure: unknown;
    for (const refund of await repo.pending(db, projectId, orderId)) {
      try {
        await execute(actor, refund);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  }

  /** `retryPending` before a cancel: an earlier refund Stripe still does not answer leaves the order paid. */
  async function retryOrSayPaid(actor: Actor | undefined, projectId: string, orderId: string) {
    try {
      await retryPending(actor, projectId, orderId);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.SERVICE_UNAVAILABLE) throw stillPaid();
      throw error;
    }
  }

  /** Runs a refund's reservation, then asks the provider for it when it is not settled already. */
  async function refundThen(
    reserved: { refund: RefundRow; order: Order | undefined } | Order,
    actor: Actor | undefined,
  ): Promise<Order> {
    if (!("refund" in reserved)) return reserved;
    if (reserved.order) return reserved.order;
    try {
      return await execute(actor, reserved.refund);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.SERVICE_UNAVAILABLE) throw error;
      throw stillPaid();
    }
  }

  /**
   * Cancels the paid order `row` (locked) by refunding what is left of it: nothing cancelled until
   * the money went back. A paid order with nothing left to refund (free tickets) closes at once.
   */
  async function cancelPaidIn(trx: Tx, actor: Actor | undefined, row: OrderRow) {
    const left = await leftToRefund(trx, row);
    if (left === 0) return closeOrderIn(deps, trx, actor, row, nowIso());
    return reserveIn(trx, actor, row, left, { attendeeId: null, order: true });
  }

  /**
   * What a cancel of the paid order `row` (locked) refunds at most. With nothing left while a refund
   * is under way (another cancel's, racing), that refund's answer decides: refused until then.
   */
  async function leftToRefund(trx: Tx, row: OrderRow): Promise<number> {
    const left = refundableOf(row);
    if (left === 0 && (await repo.pending(trx, row.project_id, row.id)).length > 0) {
      throw conflict("A refund of this order is waiting for Stripe's answer; try again shortly", ["id"]);
    }
    return left;
  }

  /** The buyer's cancel, under the order's lock: allowed by the organizer until the deadline, paid. */
  async function buyerMayCancel(trx: Tx, projectId: string, id: string): Promise<OrderRow> {
    const row = await orders.lock(trx, projectId, id);
    if (!row) throw notFound("Order");
    const { selfCancelUntil } = await orderSettingsOf(trx, projectId);
    if (selfCancelUntil === null || selfCancelUntil <= nowIso()) {
      throw conflict("The organizer does not allow cancelling this order any more", ["id"]);
    }
    if (row.state !== "PAID") throw conflict("Only a paid order can be cancelled here", ["id"]);
    return row;
  }

  /**
   * An organizer's or app's write of one order behind orders:write (NOT_FOUND for an order out of
   * reach): the order's refunds still waiting for Stripe are asked first (`retry`), then `change`
   * runs on the locked order in one transaction.
   */
  async function organizerWrite<T>(
    actor: Actor,
    id: string,
    retry: typeof retryPending,
    change: (trx: Tx, row: OrderRow) => Promise<T>,
  ): Promise<T> {
    const located = await orders.locate(db, id);
    const granted = await requireRowPermission(access, actor, located, "Order", "orders:write", orderVisible);
    await retry(actor, granted.projectId, id);
    return writeRow(writer, actor, located, "Order", "orders:write", orderVisible, async (trx, projectId) => {
      const row = await orders.lock(trx, projectId, id);
      if (!row) throw notFound("Order");
      return change(trx, row);
    });
  }

  return {
    /**
     * Refunds `amountMinor` (default: all that is left) of a paid order, never more than was paid
     * and not refunded yet, even when two refunds race (the amount is reserved under the order's lock).
     */
    async refundOrder(actor: Actor, input: z.input<typeof refundInput>): Promise<Order> {
      const { id, amountMinor } = parseInput(refundInput, input);
      // An earlier refund left without Stripe's answer is asked first: its amount is still reserved.
      const reserved = await organizerWrite(actor, id, retryPending, async (trx, row) => {
        const refundable = refundableOf(row);
        if (refundable === 0) {
          const message =
            row.paid_at === null
              ? "Only a paid order can be refunded"
              : "The order is refunded in full already";
          throw conflict(message, ["id"]);
        }
        const amount = amountMinor ?? refundable;
        if (amount > refundable) throw conflict(`At most ${refundable} can be refunded`, ["amountMinor"]);
        return reserveIn(trx, actor, row, amount, { attendeeId: null, order: false });
      });
      return reserved.order ?? execute(actor, reserved.refund);
    },

    /**
     * Cancels an order (idempotent). An unpaid one closes at once; a paid one is refunded what is
     * left of it through its provider first, and closes when the refund is made (refund-steps.ts).
     * Stripe not answering leaves it paid, its tickets valid: SERVICE_UNAVAILABLE says so.
     */
    async cancelOrder(actor: Actor, input: z.input<typeof byId>): Promise<Order> {
      const { id } = parseInput(byId, input);
      const reserved = await organizerWrite(actor, id, retryOrSayPaid, async (trx, row) => {
        if (row.state === "CANCELLED" || row.state === "EXPIRED" || row.state === "REFUNDED") {
          // Already closed, its seats free: a repeated cancel changes nothing.
          changes.unchanged(trx);
          return presentOrder(row);
        }
        if (row.state === "PAID") return cancelPaidIn(trx, actor, row);
        return closeOrderIn(deps, trx, actor, row, nowIso());
      });
      return refundThen(reserved, actor);
    },

    /**
     * The buyer cancels their own paid order from its page (the caller matched the buyer's secret
     * link): while the organizer allows it (Settings → Payments, until a deadline), everything not
     * refunded yet is refunded through the organizer's path, which cancels the tickets, frees the
     * seats and credits the invoice. Checked under the order's lock, so a deadline passing or an
     * organizer's refund racing is decided once.
     */
    async cancelByBuyer(projectId: string, id: string): Promise<Order> {
      const actor = publicActor;
      await retryOrSayPaid(actor, projectId, id);
      const reserved = await changes.write(
        db,
        actor,
        projectId,
        async (trx) => cancelPaidIn(trx, actor, await buyerMayCancel(trx, projectId, id)),
        areas,
      );
      return refundThen(reserved, actor);
    },

    /**
     * The buyer cancels one ticket of their paid order (as `cancelByBuyer`, same rules): its share
     * (its line's price after the code, tax included) is refunded, never more than is left; the last
     * active ticket takes all that is left and closes the order. Under the order's lock a ticket
     * cancelled or being refunded already is refunded no second time: the order comes back as it is.
     */
    async cancelTicketByBuyer(projectId: string, id: string, ticketId: string): Promise<Order> {
      const actor = publicActor;
      await retryOrSayPaid(actor, projectId, id);
      const reserved = await changes.write(
        db,
        actor,
        projectId,
        async (trx) => {
          const row = await buyerMayCancel(trx, projectId, id);
          const all = await deps.tickets.list(trx, projectId, id);
          const ticket = all.find((t) => t.id === ticketId);
          if (!ticket) throw notFound("Ticket");
          if (ticket.status !== "REGISTERED" || (await repo.cancelsTicket(trx, projectId, ticket.id))) {
            changes.unchanged(trx);
            return presentOrder(row);
          }
          const others = all.filter((t) => t.id !== ticket.id && t.status === "REGISTERED");
          const line = (await orders.linesOf(trx, [id]))
            .map(presentLine)
            .find((l) => l.ticketTypeId === ticket.ticketTypeId);
          const share = ticketRefundMinor(line, await leftToRefund(trx, row), others.length === 0);
          const cancels = { attendeeId: ticket.id, order: false };
          if (share > 0) return reserveIn(trx, actor, row, share, cancels);
          // Nothing to send back for it (a free ticket, or its share refunded by amount already): cancel it now.
          const now = nowIso();
          await deps.tickets.cancelOne(trx, actor, { projectId, orderId: id, id: ticket.id }, now);
          return others.length === 0 ? closeOrderIn(deps, trx, actor, row, now) : presentOrder(row);
        },
        areas,
      );
      return refundThen(reserved, actor);
    },

    /**
     * Records and reserves a refund of a payment Eventgraph did not accept (late, duplicate, not
     * matching), inside the caller's transaction; the caller runs `retryPending` after the commit.
     */
    async sendBackIn(trx: Tx, order: OrderRow, paymentId: string, amountMinor: number, reason: RefundReason) {
      const now = nowIso();
      await repo.insert(trx, {
        id: newId(),
        project_id: order.project_id,
        order_id: order.id,
        amount_minor: amountMinor,
        state: "PENDING",
        reason,
        provider_payment_id: paymentId,
        provider_refund_id: null,
        attendee_id: null,
        cancels_order: 0,
        created_at: now,
        updated_at: now,
      });
    },

    retryPending,

    /** The refunds of some orders, by order id (the caller could read the orders). */
    async refundsOf(orderIds: readonly string[]): Promise<Map<string, Refund[]>> {
      const found = new Map<string, Refund[]>();
      for (const row of await repo.ofOrders(db, orderIds)) {
        found.set(row.order_id, [...(found.get(row.order_id) ?? []), presentRefund(row)]);
      }
      return found;
    },
  };
}

export type Refunds = ReturnType<typeof createRefunds>;
