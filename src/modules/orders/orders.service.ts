import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import { AppError, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import type { ErasedPerson } from "../../shared/erasure.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, parseInput } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import { type Actor, systemActor } from "../access/actor.js";
import { assertPermission, orderVisible } from "../access/policy.js";
import { writeRow } from "../access/row-access.js";
import { hashSecret } from "../accounts/sessions.service.js";
import type { Attendee } from "../attendees/attendees.service.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import { reclaimUses } from "../discount-codes/code-redemption.js";
import type { Invoice, Invoicing } from "../invoices/invoices.service.js";
import { queueOrderMail } from "../ticket-mails/ticket-mails.service.js";
import type { SeatClaim } from "../tickets/seats-left.js";
import { orderConfirmations } from "./order-confirmation.js";
import {
  codedLine,
  createOrderSteps,
  invoiceSource,
  lapsedBatch,
  type PlacedOrder,
  type PlaceOrderInput,
  placeInput,
} from "./order-placement.js";
import { type OrderSettings, orderSettingsInput } from "./order-settings.js";
import { conflict, type Order, type OrderLine, presentLine, presentOrder } from "./orders.model.js";
import { ordersRepository as repo } from "./orders.repository.js";
import { exportOrders, exportOrdersCsv } from "./orders-export.js";
import { paymentProvider } from "./payment-providers.js";

const listFilter = z.object({
  state: z.enum(["PENDING", "PAID", "EXPIRED", "CANCELLED", "REFUNDED"]).nullish(),
  /** An order code, or part of a buyer's or ticket holder's name or email. */
  search: z.string().trim().max(200, "must be at most 200 characters").nullish(),
});
const repoFilter = (filter: z.output<typeof listFilter>) => ({
  state: filter.state ?? undefined,
  search: filter.search || undefined,
});
const byId = z.object({ id: idText });

export type OrderFilter = z.input<typeof listFilter>;

/**
 * Orders: placing one (seats held or kept under the ticket types' locks, amounts from the server's
 * prices), marking it paid, cancelling it and expiring its hold. Reads need orders:read.
 */
export function createOrdersService(
  db: Db,
  access: AccessService,
  changes: ProjectChanges,
  tickets: OrderTickets,
  invoicing: Invoicing,
  /** Wakes this process's mail worker after a commit that queued a confirmation. */
  mailQueued: () => void = () => {},
) {
  const writer = { db, access, changes };
  const areas = areasWrittenUnder("orders:write");
  const { settingsOf, expireIn, claimSeats, placeIn } = createOrderSteps(changes, tickets, invoicing);

  /**
   * Marks an order paid inside its transaction. A pending order within its hold keeps its seats. A
   * late payment (the hold lapsed, expired or not yet) is accepted only while every one of its seats
   * is still free: then its tickets are registered again; otherwise CONFLICT, and the organizer
   * refunds the transfer (docs/payments.md).
   */
  async function markPaidIn(trx: Tx, actor: Actor, projectId: string, id: string): Promise<Order> {
    const row = await repo.lock(trx, projectId, id);
    if (!row) throw notFound("Order");
    if (row.state === "PAID") {
      // Marking paid twice (two organizers, a retried request) changes nothing.
      changes.unchanged(trx);
      return presentOrder(row);
    }
    if (row.state === "CANCELLED") throw conflict("A cancelled order cannot be paid", ["id"]);
    const now = nowIso();
    const lapsed = row.state === "EXPIRED" || (row.hold_expires_at !== null && row.hold_expires_at <= now);
    if (lapsed) {
      const expiredAt = row.state === "EXPIRED" ? (row.closed_at ?? undefined) : undefined;
      const seats = await tickets.seatsOf(trx, projectId, id, expiredAt);
      try {
        // As the operator: a sales window that closed since does not refuse seats bought inside it.
        await claimSeats(trx, systemActor, projectId, seats);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw conflict(
          "The order's hold lapsed and its seats are taken now: it cannot be paid; refund the payment",
          ["id"],
        );
      }
      // A closed order gave back its code's uses: paying it counts them again, under the limit.
      if (row.state === "EXPIRED" && row.discount_code_id) {
        const lines = (await repo.linesOf(trx, [id])).map(codedLine);
        if (!(await reclaimUses(trx, projectId, row.discount_code_id, lines, now)))
          throw conflict(
            "The order's discount code has been used up since: it cannot be paid; refund the payment",
            ["id"],
          );
      }
      if (expiredAt) await tickets.reinstate(trx, actor, projectId, id, expiredAt, now);
    }
    await tickets.keep(trx, projectId, id, now);
    const patch = {
      state: "PAID" as const,
      paid_at: now,
      hold_expires_at: null,
      closed_at: null,
      updated_at: now,
    };
    await repo.update(trx, projectId, id, patch);
    await changes.event(trx, actor, objectEvent(projectId, "Order", id, "paid"));
    const paid = presentOrder({ ...row, ...patch });
    await invoicing.invoiceIn(trx, actor, await invoiceSource(trx, settingsOf, paid));
    // A kept order (at the door, by invoice) was confirmed when placed; its payment is not news to the buyer.
    if (paymentProvider(row.provider).start !== "kept") await confirmIn(trx, projectId, id);
    return paid;
  }

  /** Queues the buyer's confirmation in the transaction that paid the order (its first ticket names the row). */
  async function confirmIn(trx: Tx, projectId: string, id: string) {
    const [first] = await tickets.list(trx, projectId, id);
    if (first) await queueOrderMail(trx, projectId, id, first.id);
  }

  /** A write of one order by id, behind orders:write (NOT_FOUND for an order out of reach). */
  async function orderWrite(
    actor: Actor,
    input: z.input<typeof byId>,
    write: (trx: Tx, projectId: string, id: string) => Promise<Order>,
  ): Promise<Order> {
    const { id } = parseInput(byId, input);
    const located = await repo.locate(db, id);
    const order = await writeRow(
      writer,
      actor,
      located,
      "Order",
      "orders:write",
      orderVisible,
      (trx, projectId) => write(trx, projectId, id),
    );
    mailQueued();
    return order;
  }

  return {
    /**
     * Places an order in a project the actor sees (the public: a published one). Every amount comes
     * from the ticket types; seats are claimed under their locks, so no concurrency oversells. The
     * event page's service decides first whether its visitors may order at all.
     */
    async placeOrder(actor: Actor, input: PlaceOrderInput): Promise<PlacedOrder> {
      const data = parseInput(placeInput, input);
      const found = await access.resolve(actor, data.projectId);
      if (!found) throw notFound("Project");
      const placed = await changes.write(
        db,
        actor,
        found.projectId,
        (trx) => placeIn(trx, actor, data),
        areas,
      );
      mailQueued();
      return placed;
    },

    /**
     * Places an order inside the caller's write, with placeOrder's rules: for a waiting-list offer
     * taken in the transaction that ends the offer (`offered`: its seat is the taker's, not the
     * line's). The caller announces the queued mail after the commit.
     */
    placeWithin(trx: Tx, actor: Actor, input: PlaceOrderInput, claim: SeatClaim): Promise<PlacedOrder> {
      return placeIn(trx, actor, parseInput(placeInput, input), claim);
    },

    /** Orders by creation, of one state or all (orders:read). */
    async listOrders(
      projectAccess: ProjectAccess,
      filter: OrderFilter,
      window: PageWindow,
    ): Promise<Page<Order>> {
      assertPermission(projectAccess, "orders:read");
      const rows = await repo.list(
        db,
        projectAccess.projectId,
        repoFilter(parseInput(listFilter, filter)),
        window,
      );
      return toPage(rows.map(presentOrder), window, (o) => [o.createdAt, o.id]);
    },

    /** A filter's orders as CSV, streamed (orders:read). */
    exportCsv: (projectAccess: ProjectAccess, filter: OrderFilter) =>
      exportOrdersCsv(db, invoicing, projectAccess, repoFilter(parseInput(listFilter, filter))),

    /** A filter's orders one by one, oldest first, for the CLI's JSON (orders:read). */
    exportRows: (projectAccess: ProjectAccess, filter: OrderFilter) =>
      exportOrders(db, invoicing, projectAccess, repoFilter(parseInput(listFilter, filter))),

    /** Total of `listOrders` for the same filter. */
    async countOrders(projectAccess: ProjectAccess, filter: OrderFilter): Promise<number> {
      assertPermission(projectAccess, "orders:read");
      return repo.count(db, projectAccess.projectId, repoFilter(parseInput(listFilter, filter)));
    },

    /** An order, when the actor holds orders:read in its project. */
    async findOrder(
      actor: Actor,
      orderId: string,
    ): Promise<{ item: Order; access: ProjectAccess } | undefined> {
      const row = await repo.locate(db, orderId);
      if (!row) return undefined;
      const found = await access.resolve(actor, row.project_id);
      return found && orderVisible(found) ? { item: presentOrder(row), access: found } : undefined;
    },

    /** Orders by id, for `Attendee.order` (the caller could read the attendees that name them). */
    async ordersByIds(ids: readonly string[]): Promise<Map<string, Order>> {
      return new Map((await repo.findByIds(db, ids)).map((row) => [row.id, presentOrder(row)]));
    },

    /** The lines of some orders, by order id (the caller could read the orders). */
    async linesOf(orderIds: readonly string[]): Promise<Map<string, OrderLine[]>> {
      const lines = new Map<string, OrderLine[]>();
      for (const row of await repo.linesOf(db, orderIds)) {
        lines.set(row.order_id, [...(lines.get(row.order_id) ?? []), presentLine(row)]);
      }
      return lines;
    },

    /** The invoices and credit notes of some orders by order id, in number order (the caller could read the orders). */
    invoicesOf: (orderIds: readonly string[]): Promise<Map<string, Invoice[]>> =>
      invoicing.ofOrders(orderIds),

    /** An invoice or credit note when the actor holds orders:read in its project; else undefined, as a missing one. */
    async findInvoice(actor: Actor, invoiceId: string): Promise<Invoice | undefined> {
      const invoice = await invoicing.locate(invoiceId);
      if (!invoice) return undefined;
      const found = await access.resolve(actor, invoice.projectId);
      return found && orderVisible(found) ? invoice : undefined;
    },

    ...orderConfirmations({ db, access, tickets, invoicing, mailQueued }),

    /** The tickets of an order (the caller could read the order). */
    ticketsOf: (order: Order): Promise<Attendee[]> => tickets.list(db, order.projectId, order.id),

    /** The order behind a buyer's link, or undefined (a wrong link and a missing order look the same). */
    async findByBuyerToken(projectId: string, code: string, token: string): Promise<Order | undefined> {
      const row = await repo.findByCode(db, projectId, code);
      if (!row?.buyer_token_hash || row.buyer_token_hash !== hashSecret(token)) return undefined;
      return presentOrder(row);
    },

    /** Marks an order paid (idempotent); a late payment is accepted only while its seats are free. */
    markOrderPaid: (actor: Actor, input: z.input<typeof byId>): Promise<Order> =>
      orderWrite(actor, input, (trx, projectId, id) => markPaidIn(trx, actor, projectId, id)),

    /**
     * Marks an order paid inside the caller's transaction, for a provider's verified notification
     * (stripe/stripe-payments.ts): the same rules as `markOrderPaid`, without an actor's permission.
     */
    paidIn: markPaidIn,

    /**
     * Expires the pending orders whose hold lapsed by `now` (the expiry worker, on every server
     * process): each in its own transaction, as the server, skipping one another process expired
     * or someone paid meanwhile. Returns how many it expired.
     */
    async expireLapsed(now = nowIso()): Promise<number> {
      let expired = 0;
      for (const { id, project_id: projectId } of await repo.lapsed(db, now, lapsedBatch)) {
        let done = false;
        await changes.write(
          db,
          undefined,
          projectId,
          async (trx) => {
            done = await expireIn(trx, projectId, id, now);
            if (!done) changes.unchanged(trx);
          },
          areas,
        );
        if (done) expired++;
      }
      return expired;
    },

    /** When the next hold lapses (the worker's timer), or undefined. */
    nextLapse: (): Promise<string | undefined> => repo.nextLapse(db),

    /** A project's order settings (any member reads them; the event page shows the bank details). */
    async settings(actor: Actor, projectId: string): Promise<OrderSettings> {
      const found = await access.require(actor, projectId);
      return settingsOf(db, found.projectId);
    },

    /** A published project's order settings for its event page (no actor: the page opened it). */
    pageSettings: (projectId: string): Promise<OrderSettings> => settingsOf(db, projectId),

    /** Changes the hold length and bank details; needs project:write like the project's other settings. */
    async updateSettings(
      actor: Actor,
      projectId: string,
      input: z.input<typeof orderSettingsInput>,
    ): Promise<OrderSettings> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(orderSettingsInput, input);
      const before = await settingsOf(db, found.projectId);
      const settings: OrderSettings = {
        holdMinutes: data.holdMinutes,
        bankDetails: data.bankDetails,
        // Left out: kept as they are (an older form or client that does not know them).
        taxRateBasisPoints: data.taxRateBasisPoints ?? before.taxRateBasisPoints,
        sellerDetails: input.sellerDetails === undefined ? before.sellerDetails : data.sellerDetails,
        invoicePrefix: data.invoicePrefix ?? before.invoicePrefix,
        pricesNet: data.pricesNet ?? before.pricesNet,
        selfCancelUntil:
          data.selfCancelUntil === undefined
            ? before.selfCancelUntil
            : data.selfCancelUntil && new Date(data.selfCancelUntil).toISOString(),
      };
      const row = {
        project_id: found.projectId,
        hold_minutes: settings.holdMinutes,
        bank_details: settings.bankDetails,
        tax_rate_bp: settings.taxRateBasisPoints,
        seller_details: settings.sellerDetails,
        invoice_prefix: settings.invoicePrefix,
        self_cancel_until: settings.selfCancelUntil,
        prices_net: settings.pricesNet ? 1 : 0,
        updated_at: nowIso(),
      };
      await changes.write(db, actor, found.projectId, async (trx) => {
        await repo.upsertSettings(trx, row);
        // Values, not only names: the hold, bank and seller details are what buyers are shown.
        const values = { ...settings };
        await changes.event(trx, actor, {
          ...objectEvent(found.projectId, "OrderSettings", found.projectId, "updated"),
          changed: Object.keys(values),
          values,
        });
      });
      return settings;
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;

/** The orders an erased attendee placed keep their lines and sums, not the buyer's name and address. */
export function eraseOrderBuyer(trx: Tx, person: ErasedPerson): Promise<void> {
  return repo.eraseBuyer(trx, person);
}
