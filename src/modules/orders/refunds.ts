import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import type { RefundReason } from "../../db/schema.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, publicActor } from "../access/actor.js";
import { orderVisible } from "../access/policy.js";
import { requireRowPermission, writeRow } from "../access/row-access.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { invoiceSource } from "./order-placement.js";
import { presentOrderSettings } from "./order-settings.js";
import { conflict, type Order, presentOrder } from "./orders.model.js";
import { type OrderRow, ordersRepository as orders } from "./orders.repository.js";
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

/** What is still refundable of an order: what was paid less what was refunded or is being refunded. */
function refundableOf(row: Pick<OrderRow, "paid_at" | "total_minor" | "refunded_minor">): number {
  return row.paid_at === null ? 0 : Number(row.total_minor) - Number(row.refunded_minor);
}

/**
 * Refunds (docs/payments.md): an organizer or app refunds part or all of a paid order; a Stripe
 * order's refund goes through Stripe's Refunds API, any other is recorded as sent back by hand.
 *
 * A refund that takes back the whole order issues a credit note for what its invoice has not taken
 * back yet in the transaction that settles it, the way a cancellation does; a partial refund one for
 * its amount.
 *
 * A Stripe refund takes three steps so that no crash and no race sends back more than was paid:
 * the amount is reserved under the order's lock (`refunded_minor` grows, a PENDING row is written),
 * Stripe is asked after the commit with the row's id as Idempotency-Key, and the answer settles the
 * row. A refund whose answer never came stays PENDING with its amount reserved, and is asked again
 * (same key, so Stripe makes it at most once) before the order's next refund or notification.
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
  const { db, access, changes, tickets } = deps;
  const writer = { db, access, changes };
  const areas = areasWrittenUnder("orders:write");
  const settingsOf = async (within: Db, projectId: string) =>
    presentOrderSettings(await orders.findSettings(within, projectId));

  /** Marks a refund made, inside a transaction: a full refund of a paid order closes it and frees its seats. */
  async function settleIn(
    trx: Tx,
    actor: Actor | undefined,
    refund: RefundRow,
    providerRefundId: string | null,
  ) {
    const now = nowIso();
    const order = await orders.lock(trx, refund.project_id, refund.order_id);
    if (!order) throw notFound("Order");
    await repo.update(trx, refund.project_id, refund.id, {
      state: "SUCCEEDED",
      provider_refund_id: providerRefundId,
      updated_at: now,
    });
    let after = order;
    if (refund.reason === "REQUESTED" && refundableOf(order) === 0 && order.state === "PAID") {
      await tickets.cancel(trx, actor, refund.project_id, order.id, now);
      const patch = { state: "REFUNDED" as const, closed_at: now, updated_at: now };
      await orders.update(trx, refund.project_id, order.id, patch);
      after = { ...order, ...patch };
      // The order is taken back in full: so is what its invoice has not been credited yet.
      await deps.invoicing.creditIn(trx, actor, await invoiceSource(trx, settingsOf, presentOrder(after)));
    } else if (refund.reason === "REQUESTED" && order.state === "PAID") {
      // A partial refund names an amount, not tickets: its credit note takes back that amount.
      const source = await invoiceSource(trx, settingsOf, presentOrder(order));
      await deps.invoicing.creditAmountIn(trx, actor, source, Number(refund.amount_minor));
    }
    await changes.event(trx, actor, {
      ...objectEvent(refund.project_id, "Order", order.id, "refunded"),
      changed: ["refunds"],
      values: { refundId: refund.id, amountMinor: Number(refund.amount_minor), reason: refund.reason },
    });
    return presentOrder(after);
  }

  /**
   * Reserves a refund of `amountMinor` (default: all that is left) under the order's lock, never more
   * than is left; money paid outside Eventgraph is recorded as sent back at once (settled here).
   */
  async function reserveIn(
    trx: Tx,
    actor: Actor | undefined,
    projectId: string,
    id: string,
    amountMinor: number | null | undefined,
  ): Promise<{ refund: RefundRow; order: Order | undefined }> {
    const row = await orders.lock(trx, projectId, id);
    if (!row) throw notFound("Order");
    const refundable = refundableOf(row);
    if (refundable === 0) {
      throw conflict(
        row.paid_at === null ? "Only a paid order can be refunded" : "The order is refunded in full already",
        ["id"],
      );
    }
    const amount = amountMinor ?? refundable;
    if (amount > refundable) throw conflict(`At most ${refundable} can be refunded`, ["amountMinor"]);
    const now = nowIso();
    const refund: RefundRow = {
      id: newId(),
      project_id: projectId,
      order_id: id,
      amount_minor: amount,
      state: "PENDING",
      reason: "REQUESTED",
      provider_payment_id: row.provider === "STRIPE" ? row.provider_payment_id : null,
      provider_refund_id: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(trx, refund);
    await orders.update(trx, projectId, id, {
      refunded_minor: Number(row.refunded_minor) + amount,
      updated_at: now,
    });
    // Money paid outside Eventgraph goes back the same way: the refund is recorded as made.
    if (refund.provider_payment_id === null)
      return { refund, order: await settleIn(trx, actor, refund, null) };
    return { refund, order: undefined };
  }

  /** Gives a refund's reserved amount back after the provider refused it for good. */
  async function failIn(trx: Tx, refund: RefundRow): Promise<void> {
    const order = await orders.lock(trx, refund.project_id, refund.order_id);
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
   * no answer (timeout, 5xx) leaves it PENDING, amount reserved, to be asked again: Stripe may have
   * made it, and the same Idempotency-Key makes sure it is made once.
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

  return {
    /**
     * Refunds `amountMinor` (default: all that is left) of a paid order, never more than was paid
     * and not refunded yet, even when two refunds race (the amount is reserved under the order's lock).
     */
    async refundOrder(actor: Actor, input: z.input<typeof refundInput>): Promise<Order> {
      const { id, amountMinor } = parseInput(refundInput, input);
      const located = await orders.locate(db, id);
      const granted = await requireRowPermission(
        access,
        actor,
        located,
        "Order",
        "orders:write",
        orderVisible,
      );
      // An earlier refund left without Stripe's answer is asked first: its amount is still reserved.
      await this.retryPending(actor, granted.projectId, id);
      const reserved = await writeRow(
        writer,
        actor,
        located,
        "Order",
        "orders:write",
        orderVisible,
        (trx, projectId) => reserveIn(trx, actor, projectId, id, amountMinor),
      );
      return reserved.order ?? execute(actor, reserved.refund);
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
      await this.retryPending(actor, projectId, id);
      const reserved = await changes.write(
        db,
        actor,
        projectId,
        async (trx) => {
          const row = await orders.lock(trx, projectId, id);
          if (!row) throw notFound("Order");
          const { selfCancelUntil } = await settingsOf(trx, projectId);
          if (selfCancelUntil === null || selfCancelUntil <= nowIso()) {
            throw conflict("The organizer does not allow cancelling this order any more", ["id"]);
          }
          if (row.state !== "PAID") throw conflict("Only a paid order can be cancelled here", ["id"]);
          return reserveIn(trx, actor, projectId, id, null);
        },
        areas,
      );
      return reserved.order ?? execute(actor, reserved.refund);
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
        created_at: now,
        updated_at: now,
      });
    },

    /** Asks the provider again for an order's PENDING refunds; throws the first failure after trying all. */
    async retryPending(actor: Actor | undefined, projectId: string, orderId: string): Promise<void> {
      let failure: unknown;
      for (const refund of await repo.pending(db, projectId, orderId)) {
        try {
          await execute(actor, refund);
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure) throw failure;
    },

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
