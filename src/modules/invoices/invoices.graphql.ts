import { builder } from "../../graphql/builder.js";
import { invoiceDownloadPath } from "../../graphql/invoice-download.js";
import { MoneyRef } from "../tickets/tickets.graphql.js";
import type { Invoice } from "./invoices.service.js";

const InvoiceKindEnum = builder.enumType("InvoiceKind", {
  description: "What a billing document is.",
  values: {
    INVOICE: {
      description: "The invoice of an order: issued when it is paid, or placed to be paid by invoice.",
    },
    CREDIT_NOTE: {
      description:
        "Takes back (part of) an invoice, e.g. when the order is cancelled; its amounts are negative.",
    },
  } as const,
});

/** An invoice or credit note of an order, as issued (readable with the order: orders:read). */
export const InvoiceRef = builder.objectRef<Invoice>("Invoice").implement({
  inheritsAccess: true,
  description: "An invoice or credit note, numbered without gaps per project and never changed once issued.",
  fields: (t) => ({
    number: t.exposeString("number", { description: "Its number, e.g. INV-2026-0001." }),
    kind: t.expose("kind", { type: InvoiceKindEnum, description: "Invoice or credit note." }),
    issuedAt: t.expose("issuedAt", { type: "DateTime", description: "When it was issued." }),
    total: t.field({
      type: MoneyRef,
      description: "The gross total, tax included; negative for a credit note.",
      resolve: (i) => ({ amountMinor: i.totalMinor, currency: i.currency }),
    }),
    tax: t.field({
      type: MoneyRef,
      description: "The tax included in the total.",
      resolve: (i) => ({ amountMinor: i.document.taxMinor, currency: i.currency }),
    }),
    correctsNumber: t.string({
      nullable: true,
      description: "For a credit note: the number of the invoice it corrects.",
      resolve: (i) => i.document.correctsNumber,
    }),
    url: t.string({
      description:
        "Where to download the PDF: GET it with the same Authorization: Bearer token (orders:read).",
      resolve: (i, _args, c) => `${c.services.config.baseUrl}${invoiceDownloadPath(i.id)}`,
    }),
  }),
});
