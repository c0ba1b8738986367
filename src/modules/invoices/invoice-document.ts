import type { InvoiceKind } from "../../db/schema.js";
import { type Order, type OrderLine, paidUnitMinor } from "../orders/orders.model.js";
import { taxIncluded } from "./taxes.js";

/**
 * One line of an invoice: gross is quantity × unit price; net and tax add up to it exactly. A credit
 * note's line taking back an amount (a partial refund) has quantity 0 and only the amounts.
 */
export interface InvoiceLine {
  ticketTypeId: string;
  description: string;
  quantity: number;
  unitPriceMinor: number;
  taxRateBasisPoints: number;
  grossMinor: number;
  taxMinor: number;
  netMinor: number;
  /** The price was entered net, its tax added per ticket (absent on documents issued before). */
  pricesNet?: boolean;
}

/** The tax of one rate over the whole document, as tax law asks an invoice to show it. */
interface TaxSummary {
  rateBasisPoints: number;
  netMinor: number;
  taxMinor: number;
}

/**
 * An invoice or credit note as issued: everything printed on it, frozen, so the PDF drawn from it
 * today and in ten years is the same whatever changes in the settings or the order since.
 */
export interface InvoiceDocument {
  kind: InvoiceKind;
  number: string;
  issuedAt: string;
  /** The seller, as the organizer wrote it in Settings → Payments (name, address, VAT id). */
  seller: string;
  buyer: {
    name: string;
    email: string;
    company: string | null;
    address: string | null;
    vatId: string | null;
  };
  orderCode: string;
  /** How the order is paid, in words ("Bank transfer"). */
  payment: string;
  /** For a credit note: the invoice it corrects. */
  correctsNumber: string | null;
  currency: string;
  /** Negative amounts on a credit note. */
  lines: InvoiceLine[];
  taxes: TaxSummary[];
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
}

/** What an invoice is made of, read by the orders service inside its transaction. */
export interface InvoiceSource {
  order: Order;
  lines: readonly OrderLine[];
  /** The seller's details; null: the organizer has not given them, and no invoice is issued. */
  seller: string | null;
  /** What invoice numbers start with. */
  prefix: string;
  payment: string;
}

/**
 * Lines of an order as invoiced: the tax frozen on each order line, never computed again; the unit
 * price is what was charged, after the order's discount code (the description names the code).
 */
export function invoiceLines(lines: readonly OrderLine[], discountCode: string | null = null): InvoiceLine[] {
  return lines.map((line) => {
    const unitPriceMinor = paidUnitMinor(line);
    const grossMinor = unitPriceMinor * line.quantity;
    return {
      ticketTypeId: line.ticketTypeId,
      description:
        line.unitDiscountMinor > 0 && discountCode
          ? `${line.ticketTypeName} (code ${discountCode})`
          : line.ticketTypeName,
      quantity: line.quantity,
      unitPriceMinor,
      taxRateBasisPoints: line.taxRateBasisPoints,
      grossMinor,
      taxMinor: line.taxMinor,
      netMinor: grossMinor - line.taxMinor,
      pricesNet: line.pricesNet,
    };
  });
}

/**
 * The lines of a credit note taking back `quantities` (ticket type → tickets) of an invoice's
 * lines, negated. Taking back what is left of a line negates its amounts exactly (less what amount
 * credits took already); part of one computes the tax of the part the same way the line's was, so
 * a full and a partial take-back agree to the cent.
 */
export function creditLines(invoiced: readonly InvoiceLine[], quantities: ReadonlyMap<string, number>) {
  const lines: InvoiceLine[] = [];
  for (const line of invoiced) {
    const quantity = quantities.get(line.ticketTypeId) ?? 0;
    if (quantity <= 0) continue;
    if (quantity === line.quantity) {
      lines.push({
        ...line,
        quantity: -quantity,
        grossMinor: -line.grossMinor,
        taxMinor: -line.taxMinor,
        netMinor: -line.netMinor,
      });
      continue;
    }
    const grossMinor = -line.unitPriceMinor * quantity;
    // A net line's tax was added per ticket, so its tickets' share is exact.
    const taxMinor = line.pricesNet
      ? -(line.taxMinor / line.quantity) * quantity
      : taxIncluded(grossMinor, line.taxRateBasisPoints);
    lines.push({ ...line, quantity: -quantity, grossMinor, taxMinor, netMinor: grossMinor - taxMinor });
  }
  return lines;
}

/**
 * The lines of a credit note taking back `amountMinor` (a partial refund: money, not tickets) of an
 * invoice's open lines, negated: one line per invoice line, in proportion to what is left of each,
 * the last taking the rounding, each with the tax included in its share at its rate. So the tax
 * credited follows the invoice's split between rates, and the credit notes of an order never take
 * back more than its invoice, nor a different tax.
 */
export function amountCreditLines(open: readonly InvoiceLine[], amountMinor: number): InvoiceLine[] {
  const lines = open.filter((l) => l.grossMinor > 0);
  const openGross = lines.reduce((sum, l) => sum + l.grossMinor, 0);
  let left = Math.min(amountMinor, openGross);
  const credited: InvoiceLine[] = [];
  lines.forEach((line, i) => {
    const share =
      i === lines.length - 1
        ? left
        : Math.min(line.grossMinor, Math.floor((amountMinor * line.grossMinor) / openGross), left);
    left -= share;
    if (share <= 0) return;
    const taxMinor = taxIncluded(-share, line.taxRateBasisPoints);
    credited.push({
      ...line,
      description: `Refund: ${line.description}`,
      quantity: 0,
      unitPriceMinor: 0,
      grossMinor: -share,
      taxMinor,
      netMinor: -share - taxMinor,
    });
  });
  return credited;
}

/** The document of `lines`: totals and the tax per rate, in the lines' order of first appearance. */
export function composeDocument(
  head: Omit<InvoiceDocument, "lines" | "taxes" | "netMinor" | "taxMinor" | "grossMinor">,
  lines: InvoiceLine[],
): InvoiceDocument {
  const taxes = new Map<number, TaxSummary>();
  for (const line of lines) {
    const sum = taxes.get(line.taxRateBasisPoints) ?? {
      rateBasisPoints: line.taxRateBasisPoints,
      netMinor: 0,
      taxMinor: 0,
    };
    sum.netMinor += line.netMinor;
    sum.taxMinor += line.taxMinor;
    taxes.set(line.taxRateBasisPoints, sum);
  }
  const total = (pick: (l: InvoiceLine) => number) => lines.reduce((s, l) => s + pick(l), 0);
  return {
    ...head,
    lines,
    taxes: [...taxes.values()],
    netMinor: total((l) => l.netMinor),
    taxMinor: total((l) => l.taxMinor),
    grossMinor: total((l) => l.grossMinor),
  };
}
