import type { OrderState, PaymentProviderName } from "../../db/schema.js";
import { AppError, ErrorCode } from "../../errors.js";
import type { Translator } from "../../shared/i18n/translator.js";
import type { OrderLineRow, OrderRow } from "./orders.repository.js";

export interface Order {
  id: string;
  projectId: string;
  /** The code people quote (the payment reference of a bank transfer): `aB3x-7KQ3MX`. */
  code: string;
  buyerName: string;
  buyerEmail: string;
  /** Whom to invoice, as given at checkout (null: not given). */
  buyerCompany: string | null;
  buyerAddress: string | null;
  buyerVatId: string | null;
  state: OrderState;
  /** Minor units of `currency`, computed on the server from the ticket types' prices. */
  totalMinor: number;
  currency: string;
  /** Minor units refunded so far, refunds waiting for the provider's answer included. */
  refundedMinor: number;
  provider: PaymentProviderName;
  paymentReference: string | null;
  /** While PENDING with held seats: when the hold lapses. */
  holdExpiresAt: string | null;
  createdAt: string;
  paidAt: string | null;
  closedAt: string | null;
  updatedAt: string;
  /** The discount or access code it was placed with, as the buyer's code read then; null: none. */
  discountCode: string | null;
  /** What the code took off in all (totalMinor is after it). */
  discountMinor: number;
}

/** One ticket type of an order, priced as when the order was placed. */
export interface OrderLine {
  ticketTypeId: string;
  ticketTypeName: string;
  quantity: number;
  /** Gross: the tax is included. */
  unitPriceMinor: number;
  /** The tax rate the line was sold at, in basis points (1900: 19 %). */
  taxRateBasisPoints: number;
  /** The tax included in the line's gross (quantity × unit price), in minor units. */
  taxMinor: number;
  /** What the order's code took off each ticket of the line. */
  unitDiscountMinor: number;
  /** The price was entered net and the tax added per ticket (unitPriceMinor is still gross). */
  pricesNet: boolean;
}

export function presentOrder(row: OrderRow): Order {
  return {
    id: row.id,
    projectId: row.project_id,
    code: row.code,
    buyerName: row.buyer_name,
    buyerEmail: row.buyer_email,
    buyerCompany: row.buyer_company,
    buyerAddress: row.buyer_address,
    buyerVatId: row.buyer_vat_id,
    state: row.state,
    totalMinor: Number(row.total_minor),
    currency: row.currency,
    refundedMinor: Number(row.refunded_minor),
    provider: row.provider,
    paymentReference: row.payment_reference,
    holdExpiresAt: row.hold_expires_at,
    createdAt: row.created_at,
    paidAt: row.paid_at,
    closedAt: row.closed_at,
    updatedAt: row.updated_at,
    discountCode: row.discount_code,
    discountMinor: Number(row.discount_minor),
  };
}

export function presentLine(row: OrderLineRow): OrderLine {
  return {
    ticketTypeId: row.ticket_type_id,
    ticketTypeName: row.ticket_type_name,
    quantity: Number(row.quantity),
    unitPriceMinor: Number(row.unit_price_minor),
    taxRateBasisPoints: Number(row.tax_rate_bp),
    taxMinor: Number(row.tax_minor),
    unitDiscountMinor: Number(row.unit_discount_minor),
    pricesNet: Number(row.prices_net) === 1,
  };
}

/** A refusal of an order's state or seats, named on the field the caller sent. */
export function conflict(message: string, field: string[] = ["tickets"]): AppError {
  return new AppError(ErrorCode.CONFLICT, message, { fieldErrors: [{ field, message }] });
}

/** What one ticket of a line costs after the order's code: what invoices and receipts charge. */
export const paidUnitMinor = (line: Pick<OrderLine, "unitPriceMinor" | "unitDiscountMinor">) =>
  line.unitPriceMinor - line.unitDiscountMinor;

/**
 * What cancelling one ticket of a paid order refunds, `left` being what is still refundable: its
 * line's price after the code (tax included), never more than is left; the order's last active
 * ticket takes all that is left, so cancelling every ticket refunds exactly what was paid.
 */
export function ticketRefundMinor(line: OrderLine | undefined, left: number, last: boolean): number {
  return last ? left : Math.min(line ? paidUnitMinor(line) : 0, left);
}

/**
 * One ticket's price after the code as the organizer entered prices: net when the line was sold net
 * (exact, as its tax was added per ticket), else gross. What the order's pages print as the unit price.
 */
export const shownUnitMinor = (line: OrderLine) =>
  line.pricesNet ? paidUnitMinor(line) - line.taxMinor / line.quantity : paidUnitMinor(line);

/**
 * How a line's price reads in the buyer's language: "€23.80 (incl. 19% tax €3.80)", or for a net
 * price "€23.80 (€20.00 + 19% tax €3.80)".
 */
export function linePriceWords(line: OrderLine, words: Translator, currency: string): string {
  const money = (minor: number) => words.money(minor, currency);
  const gross = money(paidUnitMinor(line) * line.quantity);
  if (line.taxMinor === 0) return gross;
  const rate = words.rate(line.taxRateBasisPoints);
  const tax = money(line.taxMinor);
  return line.pricesNet
    ? words.t("line.netTax", {
        gross,
        net: money(paidUnitMinor(line) * line.quantity - line.taxMinor),
        rate,
        tax,
      })
    : words.t("line.inclTax", { gross, rate, tax });
}
