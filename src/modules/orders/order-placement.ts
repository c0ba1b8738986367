import { randomInt } from "node:crypto";
import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import type { TicketPaymentMode } from "../../db/schema.js";
import { badInput, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { languages } from "../../shared/i18n/languages.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { email, idText, optionalMultilineText, optionalText, requiredText } from "../../shared/validation.js";
import type { Actor } from "../access/actor.js";
import { hashSecret } from "../accounts/sessions.service.js";
import type { Attendee } from "../attendees/attendees.service.js";
import { seatCounts, seatRefusal } from "../attendees/attendees-seats.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import { claimUses, findCode, releaseUses } from "../discount-codes/code-redemption.js";
import { type DiscountCode, unitDiscount, unlocks } from "../discount-codes/discount-codes.model.js";
import type { InvoiceSource } from "../invoices/invoice-document.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { priceLine } from "../invoices/taxes.js";
import { queueOrderMail } from "../ticket-mails/ticket-mails.service.js";
import { type SeatClaim, seatsLeft } from "../tickets/seats-left.js";
import { isOnSale, orderableOnPage } from "../tickets/tickets.service.js";
import { type OrderSettings, presentOrderSettings } from "./order-settings.js";
import { conflict, type Order, presentLine, presentOrder } from "./orders.model.js";
import { type OrderLineRow, type OrderRow, ordersRepository as repo } from "./orders.repository.js";
import { paymentProvider, providerForModes } from "./payment-providers.js";
import { paymentAccountsRepository } from "./stripe/payment-accounts.repository.js";

// Placing an order and the steps it shares with the rest of the orders service (claiming seats,
// expiring a lapsed hold), kept apart so the service file holds the state changes and the reads.

export const maxTicketsPerOrder = 20;
// The largest amount the integer columns hold on PostgreSQL.
const maxAmountMinor = 2_147_483_647;

export const placeInput = z.object({
  projectId: idText,
  buyerName: requiredText(200),
  buyerEmail: email,
  company: optionalText(200),
  /** Whom to invoice: the postal address and VAT id printed on the invoice. */
  billingAddress: optionalMultilineText(500),
  vatId: optionalText(40),
  tickets: z
    .array(
      z.object({
        ticketTypeId: idText,
        name: requiredText(200),
        email,
        /** The ticket holder's answers to the event's questions (checked as every registration's). */
        answers: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1, "must name at least one ticket")
    .max(maxTicketsPerOrder, `must name at most ${maxTicketsPerOrder} tickets`),
  idempotencyKey: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,64}$/, "must be the key the form was given")
    .optional(),
  /** The secret of the buyer's link to the order's page (only its hash is stored). */
  buyerToken: z.string().min(20).max(100).optional(),
  /** The event page's language the order was placed in: its tickets' and the buyer's emails go in it. */
  language: z.enum(languages).optional(),
  /** A discount or access code, in any case; empty: none. */
  discountCode: z
    .string()
    .trim()
    .max(60, "is not a valid code for this event")
    .nullish()
    .transform((v) => v || undefined),
});

export type PlaceOrderInput = z.input<typeof placeInput>;

/** A placed order with its tickets; `repeat`: the same checkout form was submitted again. */
export interface PlacedOrder {
  order: Order;
  tickets: Attendee[];
  repeat: boolean;
}

// Crockford's base32 (as ticket codes): read aloud or typed from a bank statement without mix-ups.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A new order code: the project's id and six random characters (a billion per project). */
function newOrderCode(projectId: string): string {
  let random = "";
  for (let i = 0; i < 6; i++) random += codeAlphabet[randomInt(codeAlphabet.length)];
  return `${projectId}-${random}`;
}

/**
 * The shortest hold of a card payment: Stripe keeps a Checkout Session open at least 30 minutes, and
 * the hold is aligned with it so a buyer still on Stripe's page keeps their seats (docs/payments.md).
 */
const cardHoldMinutes = 30;
/** What an invoice of `order` is made of, read inside the caller's transaction. */
export async function invoiceSource(
  trx: Tx,
  settingsOf: (within: Db, projectId: string) => Promise<OrderSettings>,
  order: Order,
): Promise<InvoiceSource> {
  const settings = await settingsOf(trx, order.projectId);
  return {
    order,
    lines: (await repo.linesOf(trx, [order.id])).map(presentLine),
    seller: settings.sellerDetails,
    prefix: settings.invoicePrefix,
    payment: paymentProvider(order.provider).title,
  };
}

/**
 * One line of an order: its ticket type at its price, less what the code takes off each ticket (of
 * the price as entered, net or gross), and the tax (priceLine: included, or added when the project
 * enters prices net). Every amount of an order comes from here (the unit price, the discount, the
 * tax, and so the total); the line keeps them gross. The rate and the way the price was entered are
 * frozen on the line: a setting changed later rewrites no sold order.
 */
function pricedLine(
  ticketTypeId: string,
  name: string,
  enteredPriceMinor: number,
  quantity: number,
  code: DiscountCode | undefined,
  taxRateBasisPoints: number,
  pricesNet: boolean,
): OrderLineRow {
  const priced = priceLine({
    unitPriceMinor: enteredPriceMinor,
    unitDiscountMinor: unitDiscount(code, ticketTypeId, enteredPriceMinor),
    quantity,
    rateBasisPoints: taxRateBasisPoints,
    pricesNet,
  });
  return {
    order_id: "",
    ticket_type_id: ticketTypeId,
    ticket_type_name: name,
    quantity,
    unit_price_minor: priced.unitPriceMinor,
    unit_discount_minor: priced.unitDiscountMinor,
    tax_rate_bp: taxRateBasisPoints,
    tax_minor: priced.taxMinor,
    prices_net: pricesNet ? 1 : 0,
  };
}

/** An order line as the code's use count reads it. */
export const codedLine = (line: Pick<OrderLineRow, "ticket_type_id" | "quantity">) => ({
  ticketTypeId: line.ticket_type_id,
  quantity: Number(line.quantity),
});

/** A project's order settings as the order's transaction reads them. */
export async function orderSettingsOf(within: Db, projectId: string): Promise<OrderSettings> {
  return presentOrderSettings(await repo.findSettings(within, projectId));
}

/** Gives back the code uses of an order that closes (cancelled, expired): its seats are free too. */
export async function releaseCode(trx: Tx, row: OrderRow, now: string): Promise<void> {
  if (!row.discount_code_id) return;
  const lines = await repo.linesOf(trx, [row.id]);
  await releaseUses(trx, row.project_id, row.discount_code_id, lines.map(codedLine), now);
}

/** The expiry worker's and the checkout's batch: lapsed holds expired per statement round. */
export const lapsedBatch = 50;

/** The steps of orders that run inside a transaction, for the orders service. */
export function createOrderSteps(changes: ProjectChanges, tickets: OrderTickets, invoicing: Invoicing) {
  const areas = areasWrittenUnder("orders:write");

  const settingsOf = orderSettingsOf;

  /**
   * Expires a pending order whose hold lapsed, inside the caller's transaction: its tickets are
   * cancelled (their seats were already uncounted) and it says so. Anything else is left alone.
   */
  async function expireIn(trx: Tx, projectId: string, id: string, now: string): Promise<boolean> {
    const row = await repo.lock(trx, projectId, id);
    if (row?.state !== "PENDING" || row.hold_expires_at === null || row.hold_expires_at > now) return false;
    await tickets.cancel(trx, undefined, projectId, id, now);
    await releaseCode(trx, row, now);
    await repo.update(trx, projectId, id, { state: "EXPIRED", closed_at: now, updated_at: now });
    await changes.event(trx, undefined, objectEvent(projectId, "Order", id, "expired"));
    return true;
  }

  /**
   * Takes `seats` (ticket type -> count) under the ticket types' locks, or throws why not: a type
   * missing from the project, off sale, not sold on the page, or without that many seats left
   * (`claim`: see SeatClaim; only a taken waiting-list offer claims its own seat).
   */
  async function claimSeats(
    trx: Tx,
    actor: Actor,
    projectId: string,
    seats: Map<string, number>,
    claim: SeatClaim = "open",
  ) {
    const counts = await seatCounts(trx, projectId, seats.keys(), true);
    for (const [ticketTypeId, wanted] of seats) {
      const found = counts.get(ticketTypeId);
      if (!found)
        throw badInput([{ field: ["tickets"], message: "names a ticket type not found in this event" }]);
      const refusal = seatRefusal(actor, found.ticketType, found, wanted, claim);
      if (refusal) {
        const left = seatsLeft(Number(found.ticketType.quantity), found, claim);
        throw left > 0 ? conflict(`Only ${left} "${found.ticketType.name}" tickets are left`) : refusal;
      }
    }
    return counts;
  }

  async function placeIn(
    trx: Tx,
    actor: Actor,
    data: z.output<typeof placeInput>,
    claim: SeatClaim = "open",
  ): Promise<PlacedOrder> {
    const { projectId } = data;
    // Bumping the versions first locks the project's version row: checkouts of one project run one
    // after the other from here, so a repeated form always finds the first submit's order.
    await changes.recordAreas(trx, projectId, areas);
    if (data.idempotencyKey) {
      const repeat = await repo.findByIdempotencyKey(trx, projectId, data.idempotencyKey);
      if (repeat) {
        return {
          order: presentOrder(repeat),
          tickets: await tickets.list(trx, projectId, repeat.id),
          repeat: true,
        };
      }
    }
    const now = nowIso();
    // Lapsed holds free their seats in every count already; expiring them here also frees their
    // emails (one active registration per email) for a buyer who tries again after a lapse.
    for (const lapsed of await repo.lapsed(trx, now, lapsedBatch, projectId)) {
      await expireIn(trx, projectId, lapsed.id, now);
    }
    const seats = new Map<string, number>();
    for (const t of data.tickets) seats.set(t.ticketTypeId, (seats.get(t.ticketTypeId) ?? 0) + 1);
    const counts = await claimSeats(trx, actor, projectId, seats, claim);
    const settings = await settingsOf(trx, projectId);
    const discountCode = data.discountCode
      ? await findCode(trx, projectId, data.discountCode, now)
      : undefined;
    const lines: OrderLineRow[] = [];
    const paidModes: TicketPaymentMode[] = [];
    let total = 0;
    let discount = 0;
    const currencies = new Set<string>();
    for (const [ticketTypeId, quantity] of seats) {
      const { ticketType } = counts.get(ticketTypeId) ?? {};
      if (!ticketType) throw notFound("TicketType");
      if (
        !isOnSale(ticketType, now) ||
        !orderableOnPage({ priceMinor: ticketType.price_minor, paymentMode: ticketType.payment_mode })
      ) {
        throw conflict(`"${ticketType.name}" is not on sale here`);
      }
      // A hidden type is offered only with a code that names it; without one it is not there.
      if (ticketType.hidden && !unlocks(discountCode, ticketTypeId))
        throw badInput([{ field: ["tickets"], message: "names a ticket type not found in this event" }]);
      const line = pricedLine(
        ticketTypeId,
        ticketType.name,
        Number(ticketType.price_minor),
        quantity,
        discountCode,
        ticketType.tax_rate_bp === null ? settings.taxRateBasisPoints : Number(ticketType.tax_rate_bp),
        settings.pricesNet,
      );
      const price = line.unit_price_minor - line.unit_discount_minor;
      if (price > 0) {
        paidModes.push(ticketType.payment_mode);
        currencies.add(ticketType.currency);
      }
      total += price * quantity;
      discount += line.unit_discount_minor * quantity;
      lines.push(line);
    }
    if (discountCode) await claimUses(trx, discountCode, lines.map(codedLine), now);
    if (currencies.size > 1)
      throw badInput([{ field: ["tickets"], message: "must all be priced in one currency" }]);
    if (total > maxAmountMinor)
      throw badInput([{ field: ["tickets"], message: "add up to more than one order can hold" }]);
    const provider = providerForModes(paidModes);
    if (!provider)
      throw badInput([
        { field: ["tickets"], message: "are paid in different ways: buy them in separate orders" },
      ]);
    if (provider.name === "BANK_TRANSFER" && !settings.bankDetails) {
      throw conflict("This event does not take bank transfers yet; ask the organizer");
    }
    if (provider.name === "STRIPE" && !(await paymentAccountsRepository.exists(trx, projectId))) {
      throw conflict("This event does not take card payments yet; ask the organizer");
    }
    const holdMinutes =
      provider.name === "STRIPE" ? Math.max(settings.holdMinutes, cardHoldMinutes) : settings.holdMinutes;
    const id = newId();
    const code = newOrderCode(projectId);
    const holdExpiresAt =
      provider.start === "held" ? new Date(Date.parse(now) + holdMinutes * 60_000).toISOString() : null;
    const row: OrderRow = {
      id,
      project_id: projectId,
      code,
      buyer_name: data.buyerName,
      buyer_email: data.buyerEmail,
      state: provider.start === "paid" ? "PAID" : "PENDING",
      total_minor: total,
      // A free order has no priced line: it is in the currency its ticket types name.
      currency:
        [...currencies][0] ?? lines.map((l) => counts.get(l.ticket_type_id)?.ticketType.currency)[0] ?? "EUR",
      provider: provider.name,
      payment_reference: provider.reference(code),
      hold_expires_at: holdExpiresAt,
      idempotency_key: data.idempotencyKey ?? null,
      buyer_token_hash: data.buyerToken ? hashSecret(data.buyerToken) : null,
      buyer_company: data.company ?? null,
      buyer_address: data.billingAddress ?? null,
      buyer_vat_id: data.vatId ?? null,
      created_at: now,
      paid_at: provider.start === "paid" ? now : null,
      closed_at: null,
      updated_at: now,
      provider_session_id: null,
      provider_payment_id: null,
      refunded_minor: 0,
      discount_code_id: discountCode?.id ?? null,
      discount_code: discountCode?.code ?? null,
      discount_minor: discount,
    };
    await repo.insert(
      trx,
      row,
      lines.map((line) => ({ ...line, order_id: id })),
    );
    const added = await tickets.add(
      trx,
      actor,
      { id, heldUntil: holdExpiresAt },
      data.tickets.map((t) => ({ projectId, ...t, company: data.company, language: data.language })),
    );
    await changes.event(trx, actor, { ...objectEvent(projectId, "Order", id, "created"), row });
    const order = presentOrder(row);
    // Paid by invoice: the invoice is what the buyer pays, so it is issued with the order.
    if (provider.name === "INVOICE")
      await invoicing.invoiceIn(trx, actor, await invoiceSource(trx, settingsOf, order));
    // Nothing to pay online (free, at the door, by invoice): the order is confirmed now; a held
    // one when it is paid (markOrderPaid).
    const [first] = added;
    if (provider.start !== "held" && first) await queueOrderMail(trx, projectId, id, first.id);
    return { order, tickets: added, repeat: false };
  }

  return { settingsOf, expireIn, claimSeats, placeIn };
}
