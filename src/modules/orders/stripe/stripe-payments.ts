import { randomUUID } from "node:crypto";
import type { Stripe } from "stripe";
import type { Db } from "../../../db/database.js";
import { AppError, ErrorCode } from "../../../errors.js";
import type { Logger } from "../../../logger.js";
import { areasWrittenUnder } from "../../../shared/data-areas.js";
import type { ProjectChanges } from "../../../shared/project-changes.js";
import { nowIso } from "../../../shared/time.js";
import { systemActor } from "../../access/actor.js";
import { conflict, type Order, paidUnitMinor } from "../orders.model.js";
import { type OrderRow, ordersRepository as orders } from "../orders.repository.js";
import type { OrdersService } from "../orders.service.js";
import type { Refunds } from "../refunds.js";
import { paymentAccountsRepository as accountsRepo } from "./payment-accounts.repository.js";
import type { StripeAccounts } from "./stripe-account.js";
import type { StripeGateway } from "./stripe-gateway.js";

/** What a notification did, for the receiver's answer and the tests. */
export type NotificationOutcome = "paid" | "sent-back" | "replayed" | "ignored";

// Stripe keeps a Checkout Session open 30 minutes at least and 24 hours at most.
const sessionMinSeconds = 30 * 60 + 60;
const sessionMaxSeconds = 24 * 60 * 60 - 60;

/** The event types that say a Checkout Session's money arrived (a card at once, a bank debit later). */
const paidTypes = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);

/**
 * Card payment through Stripe Checkout: sending a buyer to Stripe's page for a pending order, and
 * applying Stripe's signed notifications. Only a verified notification marks an order paid, once
 * per event id; a payment Eventgraph cannot accept (late with its seats gone, a second one, an
 * amount that is not the order's) is refunded on its own (docs/payments.md).
 */
export function createStripePayments(deps: {
  db: Db;
  changes: ProjectChanges;
  orders: OrdersService;
  accounts: StripeAccounts;
  gateway: StripeGateway;
  refunds: Refunds;
  logger: Logger;
}) {
  const { db, changes, gateway, refunds } = deps;
  const areas = areasWrittenUnder("orders:write");

  /** Records a notification whose payment is sent back, with the refund it asks for, in one transaction. */
  async function sendBack(
    projectId: string,
    eventId: string,
    type: string,
    orderId: string,
    paymentId: string,
    amount: number,
    reason: "LATE" | "DUPLICATE" | "MISMATCH",
  ) {
    return changes.write(
      db,
      undefined,
      projectId,
      async (trx) => {
        if (!(await accountsRepo.markApplied(trx, projectId, eventId, type, nowIso())))
          return "replayed" as const;
        const row = await orders.lock(trx, projectId, orderId);
        if (!row) return "ignored" as const;
        await refunds.sendBackIn(trx, row, paymentId, amount, reason);
        return "sent-back" as const;
      },
      areas,
    );
  }

  /** Applies a paid Checkout Session to its order (see createStripePayments). */
  async function applyPaid(
    projectId: string,
    event: Stripe.Event,
    session: Stripe.Checkout.Session,
  ): Promise<NotificationOutcome> {
    const orderId = session.metadata?.eventgraph_order ?? session.client_reference_id;
    const paymentId =
      typeof session.payment_intent === "string" ? session.payment_intent : session.payment_intent?.id;
    if (!orderId || !paymentId || session.payment_status !== "paid") return "ignored";
    let refusal: { row: OrderRow; reason: "LATE" | "DUPLICATE" | "MISMATCH" } | undefined;
    const outcome = await changes
      .write(
        db,
        undefined,
        projectId,
        async (trx): Promise<NotificationOutcome> => {
          if (!(await accountsRepo.markApplied(trx, projectId, event.id, event.type, nowIso()))) {
            changes.unchanged(trx);
            return "replayed";
          }
          // Scoped by the project whose secret signed it: another project's order is not found here.
          const row = await orders.lock(trx, projectId, orderId);
          if (row?.provider !== "STRIPE") return "ignored";
          if (row.provider_payment_id === paymentId) return "replayed";
          const matches =
            session.amount_total === Number(row.total_minor) &&
            session.currency?.toUpperCase() === row.currency;
          if (!matches) refusal = { row, reason: "MISMATCH" };
          else if (row.provider_payment_id !== null || row.paid_at !== null)
            refusal = { row, reason: "DUPLICATE" };
          if (refusal) throw refusalSignal;
          try {
            await deps.orders.paidIn(trx, systemActor, projectId, orderId);
          } catch (error) {
            // The hold lapsed and the seats are gone, or the order was cancelled meanwhile: this
            // transaction rolls back (it may have begun re-registering tickets) and the money goes back.
            if (error instanceof AppError && error.code === ErrorCode.CONFLICT) {
              refusal = { row, reason: "LATE" };
              throw refusalSignal;
            }
            throw error;
          }
          await orders.update(trx, projectId, orderId, {
            provider_payment_id: paymentId,
            provider_session_id: session.id,
          });
          return "paid";
        },
        areas,
      )
      .catch((error) => {
        if (error === refusalSignal) return undefined;
        throw error;
      });
    if (outcome) return outcome;
    if (!refusal) throw new Error("unreachable: a refusal without its reason");
    deps.logger.warn(
      { projectId, orderId, reason: refusal.reason },
      "A card payment Eventgraph cannot accept is refunded",
    );
    const amount = session.amount_total ?? Number(refusal.row.total_minor);
    const sent = await sendBack(projectId, event.id, event.type, orderId, paymentId, amount, refusal.reason);
    if (sent === "sent-back") await refunds.retryPending(undefined, projectId, orderId);
    return sent;
  }

  return {
    /**
     * Where to send the buyer of a pending card order: Stripe's hosted page, open until the hold
     * lapses (or the 30 minutes Stripe requires). An open session of the order is used again, so a
     * second click does not open a second payment. Throws when Stripe cannot be reached: the order
     * stays pending and the buyer's page offers to try again.
     */
    async checkoutUrl(order: Order, links: { success: string; cancel: string }): Promise<string> {
      const row = await orders.findByCode(db, order.projectId, order.code);
      if (row?.state !== "PENDING" || row.provider !== "STRIPE")
        throw conflict("This order is not awaiting a card payment", ["id"]);
      const now = Date.now();
      if (row.hold_expires_at && Date.parse(row.hold_expires_at) <= now)
        throw conflict("This order's hold lapsed: order again", ["id"]);
      const secrets = await deps.accounts.secretsOf(order.projectId);
      if (!secrets) throw conflict("This event does not take card payments yet; ask the organizer", ["id"]);
      if (row.provider_session_id) {
        const open = await gateway.openSession(secrets.secretKey, row.provider_session_id);
        if (open) return open;
      }
      const holdEnds = row.hold_expires_at ? Math.floor(Date.parse(row.hold_expires_at) / 1000) : 0;
      const nowSeconds = Math.floor(now / 1000);
      const expiresAt = Math.min(
        Math.max(holdEnds, nowSeconds + sessionMinSeconds),
        nowSeconds + sessionMaxSeconds,
      );
      const lines = (await deps.orders.linesOf([order.id])).get(order.id) ?? [];
      const session = await gateway.createCheckout(secrets.secretKey, {
        projectId: order.projectId,
        orderId: order.id,
        code: order.code,
        buyerEmail: order.buyerEmail,
        currency: order.currency,
        // What each ticket costs after the order's code: the lines then add up to the order's total,
        // which the notification's amount is checked against.
        lines: lines
          .filter((l) => paidUnitMinor(l) > 0)
          .map((l) => ({ name: l.ticketTypeName, quantity: l.quantity, unitPriceMinor: paidUnitMinor(l) })),
        successUrl: links.success,
        cancelUrl: links.cancel,
        expiresAt,
        // A fresh key per attempt: a retry after Stripe failed must not be answered with that failure.
        idempotencyKey: `checkout-${order.id}-${randomUUID()}`,
      });
      await changes.write(
        db,
        undefined,
        order.projectId,
        async (trx) => {
          await orders.update(trx, order.projectId, order.id, { provider_session_id: session.id });
          // Nothing a cached answer shows changed: the session id is the server's own.
          changes.unchanged(trx);
        },
        areas,
      );
      return session.url;
    },

    /**
     * Applies one notification Stripe sent to the project's endpoint: its signature is checked with
     * the project's webhook secret (the SDK's check, five minutes' tolerance), an event id already
     * applied changes nothing, unknown types are ignored. BAD_REQUEST for a forged or stale one.
     */
    async receive(
      projectId: string,
      rawBody: string,
      signature: string | undefined,
    ): Promise<NotificationOutcome> {
      // Only a header shaped as Stripe signs (`t=…,v1=…`) costs a read and a decryption: an unsigned
      // flood is refused before the database.
      const signed =
        signature !== undefined && /(^|,)t=\d+(,|$)/.test(signature) && /(^|,)v1=/.test(signature);
      const secrets =
        signed && /^[A-Za-z0-9]{4}$/.test(projectId) ? await deps.accounts.secretsOf(projectId) : undefined;
      let event: Stripe.Event;
      try {
        // A project without keys answers as a bad signature does: project ids are enumerable, and
        // whether one exists or takes cards is not for an unsigned caller to learn.
        if (!secrets) throw new Error("no webhook secret");
        event = gateway.verify(rawBody, signature ?? "", secrets.webhookSecret);
      } catch {
        throw new AppError(ErrorCode.BAD_REQUEST, "The notification's Stripe-Signature does not verify");
      }
      if (!paidTypes.has(event.type)) return "ignored";
      const session = event.data.object as Stripe.Checkout.Session;
      const outcome = await applyPaid(projectId, event, session);
      const orderId = session.metadata?.eventgraph_order;
      // A refund left without Stripe's answer is asked again when Stripe repeats the notification.
      if (outcome === "replayed" && orderId) await refunds.retryPending(undefined, projectId, orderId);
      return outcome;
    },
  };
}

// Thrown to roll back a notification's transaction when its payment is sent back instead.
const refusalSignal = new Error("payment refused");
