import type { FastifyReply } from "fastify";
import type { ThrottleRule } from "../accounts/throttle.js";
import { invoicePdf } from "./invoice-pdf.js";
import type { Invoice } from "./invoices.service.js";

/**
 * PDFs drawn per caller (app, organizer or buyer link) and hour. Drawing one costs a few
 * milliseconds of CPU: generous for anyone filing invoices, a ceiling for a loop.
 */
export const invoiceDownloadRule: ThrottleRule = { name: "invoice-pdf", limit: 600, windowMs: 3_600_000 };

/** Sends an invoice or credit note as a PDF download, never cached by anything in between. */
export async function sendInvoicePdf(reply: FastifyReply, invoice: Invoice): Promise<FastifyReply> {
  const body = await invoicePdf(invoice.document);
  // The number is letters, digits, '-', '_' and '/' (the prefix's rule): '/' would start a folder.
  const filename = `${invoice.number.replaceAll("/", "-")}.pdf`;
  return reply
    .code(200)
    .header("content-type", "application/pdf")
    .header("content-disposition", `attachment; filename="${filename}"`)
    .header("cache-control", "private, no-store")
    .header("x-content-type-options", "nosniff")
    .send(body);
}
