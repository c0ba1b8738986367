import type { Db, Tx } from "../../db/database.js";
import type { InvoiceKind } from "../../db/schema.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import type { Actor } from "../access/actor.js";
import { conflict } from "../orders/orders.model.js";
import {
  amountCreditLines,
  composeDocument,
  creditLines,
  type InvoiceDocument,
  type InvoiceLine,
  type InvoiceSource,
  invoiceLines,
} from "./invoice-document.js";
import { type InvoiceRow, invoicesRepository as repo } from "./invoices.repository.js";

/** An invoice or credit note as it leaves the service. */
export interface Invoice {
  id: string;
  projectId: string;
  orderId: string;
  kind: InvoiceKind;
  number: string;
  /** Gross, in minor units of `currency`; negative for a credit note. */
  totalMinor: number;
  currency: string;
  issuedAt: string;
  document: InvoiceDocument;
}

function presentInvoice(row: InvoiceRow): Invoice {
  return {
    id: row.id,
    projectId: row.project_id,
    orderId: row.order_id,
    kind: row.kind,
    number: row.number,
    totalMinor: Number(row.total_minor),
    currency: row.currency,
    issuedAt: row.issued_at,
    document: JSON.parse(row.document) as InvoiceDocument,
  };
}

/**
 * What of an order's invoice is not yet taken back by a credit note: its lines reduced by every
 * credit note issued since, dropping lines taken back in full.
 */
function uncredited(issued: readonly Invoice[]): { invoice: Invoice; lines: InvoiceLine[] } | undefined {
  const at = issued.findLastIndex((i) => i.kind === "INVOICE");
  const invoice = issued[at];
  if (!invoice) return undefined;
  const lines = invoice.document.lines.map((line) => ({ ...line }));
  // `issued` is in number order: the notes after the invoice are the ones that correct it.
  for (const note of issued.slice(at + 1)) {
    if (note.kind !== "CREDIT_NOTE") continue;
    for (const taken of note.document.lines) {
      const line = lines.find((l) => l.ticketTypeId === taken.ticketTypeId);
      if (!line) continue;
      // Credit-note amounts are negative: adding them takes them off.
      line.quantity += taken.quantity;
      line.grossMinor += taken.grossMinor;
      line.taxMinor += taken.taxMinor;
      line.netMinor += taken.netMinor;
    }
  }
  return { invoice, lines: lines.filter((l) => l.quantity > 0) };
}

/**
 * Invoices and credit notes: issued inside the transaction that pays, places or cancels the order
 * (the caller holds the order's lock), numbered without gaps per project, never changed after.
 * `creditIn` is the one entry for every credit note, so a refund issues its note the way a
 * cancellation does.
 */
export function createInvoicing(db: Db, changes: ProjectChanges) {
  async function issue(
    trx: Tx,
    actor: Actor | undefined,
    source: InvoiceSource,
    kind: InvoiceKind,
    lines: InvoiceLine[],
    correctsNumber: string | null,
  ): Promise<Invoice> {
    const { order } = source;
    const sequence = await repo.nextSequence(trx, order.projectId);
    const number = `${source.prefix}${String(sequence).padStart(4, "0")}`;
    const issuedAt = nowIso();
    const document = composeDocument(
      {
        kind,
        number,
        issuedAt,
        seller: source.seller ?? "",
        buyer: {
          name: order.buyerName,
          email: order.buyerEmail,
          company: order.buyerCompany,
          address: order.buyerAddress,
          vatId: order.buyerVatId,
        },
        orderCode: order.code,
        payment: source.payment,
        correctsNumber,
        currency: order.currency,
      },
      lines,
    );
    const row: InvoiceRow = {
      id: newId(),
      project_id: order.projectId,
      order_id: order.id,
      kind,
      sequence,
      number,
      total_minor: document.grossMinor,
      currency: order.currency,
      document: JSON.stringify(document),
      issued_at: issuedAt,
    };
    await repo.insert(trx, row);
    const verb = kind === "INVOICE" ? "issued" : "credited";
    await changes.event(trx, actor, {
      ...objectEvent(order.projectId, "Invoice", row.id, verb),
      values: {
        number,
        kind,
        orderCode: order.code,
        totalMinor: document.grossMinor,
        currency: order.currency,
      },
    });
    return presentInvoice(row);
  }

  const issuedFor = async (trx: Db, source: InvoiceSource) =>
    (await repo.ofOrders(trx, source.order.projectId, [source.order.id])).map(presentInvoice);

  return {
    /**
     * Issues the order's invoice inside the caller's transaction, once: nothing when one stands
     * already, when nothing is to be paid, or when the organizer has not said who sells (an invoice
     * without a seller is no invoice).
     */
    async invoiceIn(trx: Tx, actor: Actor | undefined, source: InvoiceSource): Promise<Invoice | undefined> {
      if (!source.seller || source.order.totalMinor === 0) return undefined;
      const issued = await issuedFor(trx, source);
      if (issued.some((i) => i.kind === "INVOICE")) return undefined;
      return issue(
        trx,
        actor,
        source,
        "INVOICE",
        invoiceLines(source.lines, source.order.discountCode),
        null,
      );
    },

    /**
     * Issues a credit note taking back `quantities` (ticket type id → tickets; all that is left when
     * omitted) of the order's invoice, inside the caller's transaction. Nothing when the order has
     * no invoice or all of it is taken back; CONFLICT when more is asked than is left.
     */
    async creditIn(
      trx: Tx,
      actor: Actor | undefined,
      source: InvoiceSource,
      quantities?: ReadonlyMap<string, number>,
    ): Promise<Invoice | undefined> {
      const open = uncredited(await issuedFor(trx, source));
      if (!open || open.lines.length === 0) return undefined;
      const wanted = quantities ?? new Map(open.lines.map((l) => [l.ticketTypeId, l.quantity]));
      for (const [ticketTypeId, quantity] of wanted) {
        const left = open.lines.find((l) => l.ticketTypeId === ticketTypeId)?.quantity ?? 0;
        if (!Number.isInteger(quantity) || quantity < 0 || quantity > left) {
          throw conflict(`Only ${left} such tickets are invoiced and not yet credited`, ["tickets"]);
        }
      }
      const lines = creditLines(open.lines, wanted);
      if (lines.length === 0) return undefined;
      return issue(trx, actor, source, "CREDIT_NOTE", lines, open.invoice.number);
    },

    /**
     * Issues a credit note taking back `amountMinor` of what the order's invoice has not yet taken
     * back (a partial refund), split over its lines (amountCreditLines), inside the caller's
     * transaction. Nothing when the order has no invoice or nothing of it is left.
     */
    async creditAmountIn(
      trx: Tx,
      actor: Actor | undefined,
      source: InvoiceSource,
      amountMinor: number,
    ): Promise<Invoice | undefined> {
      const open = uncredited(await issuedFor(trx, source));
      if (!open) return undefined;
      const lines = amountCreditLines(open.lines, amountMinor);
      if (lines.length === 0) return undefined;
      return issue(trx, actor, source, "CREDIT_NOTE", lines, open.invoice.number);
    },

    /**
     * Issues the credit note of one cancelled ticket of `ticketTypeId` for which `amountMinor` was
     * refunded, inside the caller's transaction: one ticket of its invoice line while no amount was
     * credited off that line and the refund is the ticket's price; otherwise the amount, taken off
     * that line when it holds enough (else spread as `creditAmountIn`). Nothing without an invoice.
     */
    async creditTicketIn(
      trx: Tx,
      actor: Actor | undefined,
      source: InvoiceSource,
      ticketTypeId: string,
      amountMinor: number,
    ): Promise<Invoice | undefined> {
      const open = uncredited(await issuedFor(trx, source));
      if (!open) return undefined;
      const line = open.lines.find((l) => l.ticketTypeId === ticketTypeId);
      const whole = line && line.grossMinor === line.unitPriceMinor * line.quantity;
      const lines =
        whole && line.unitPriceMinor === amountMinor
          ? creditLines(open.lines, new Map([[ticketTypeId, 1]]))
          : amountCreditLines(line && line.grossMinor >= amountMinor ? [line] : open.lines, amountMinor);
      if (lines.length === 0) return undefined;
      return issue(trx, actor, source, "CREDIT_NOTE", lines, open.invoice.number);
    },

    /** The invoices of some orders, by order id (the caller could read the orders). */
    async ofOrders(orderIds: readonly string[]): Promise<Map<string, Invoice[]>> {
      const byOrder = new Map<string, Invoice[]>();
      for (const row of await repo.ofOrderIds(db, orderIds)) {
        byOrder.set(row.order_id, [...(byOrder.get(row.order_id) ?? []), presentInvoice(row)]);
      }
      return byOrder;
    },

    /** An invoice by id, without any access check: the caller checks the order's project access. */
    locate: async (id: string): Promise<Invoice | undefined> => {
      const row = await repo.locate(db, id);
      return row ? presentInvoice(row) : undefined;
    },
  };
}

export type Invoicing = ReturnType<typeof createInvoicing>;
