import { formatMoney } from "../../shared/money.js";
import type { Email } from "../accounts/mailer.js";
import type { Attendee } from "../attendees/attendees.service.js";
import type { Invoice } from "../invoices/invoices.service.js";
import { formatTaxRate } from "../invoices/taxes.js";
import { ticketAttachment } from "../ticket-mails/ticket-mail.js";
import { type Order, type OrderLine, paidUnitMinor } from "./orders.model.js";
import { paymentProvider } from "./payment-providers.js";

/**
 * The buyer's confirmation of an order: what was bought with its tax, how it is paid, every ticket
 * with its code (and its QR attached, as the ticket email does), and the invoice attached as PDF
 * when one was issued. Sent once the order is paid, or placed when nothing is paid online.
 */
export function orderConfirmationMail(input: {
  order: Order;
  lines: readonly OrderLine[];
  tickets: readonly Attendee[];
  projectName: string;
  invoice: { invoice: Invoice; pdf: Buffer } | undefined;
}): Email {
  const { order, projectName } = input;
  const money = (minor: number) => formatMoney(minor, order.currency);
  const tax = input.lines.reduce((sum, line) => sum + line.taxMinor, 0);
  const tickets = input.tickets.filter((t) => t.status === "REGISTERED");
  const paid = order.state === "PAID";
  const text = [
    `Hello ${order.buyerName},`,
    "",
    paid
      ? `thank you for your order ${order.code} for ${projectName}. It is paid.`
      : `thank you for your order ${order.code} for ${projectName}. ${paymentProvider(order.provider).title}.`,
    "",
    ...input.lines.map(
      (line) =>
        `${line.quantity} × ${line.ticketTypeName}: ${money(paidUnitMinor(line) * line.quantity)}${
          line.taxMinor > 0
            ? ` (incl. ${formatTaxRate(line.taxRateBasisPoints)} tax ${money(line.taxMinor)})`
            : ""
        }`,
    ),
    `Total: ${money(order.totalMinor)}${tax > 0 ? ` (incl. tax ${money(tax)})` : ""}`,
    ...(order.paymentReference && !paid ? [`Payment reference: ${order.paymentReference}`] : []),
    "",
    "Your tickets (each QR code is attached):",
    ...tickets.map((t) => `- ${t.name} <${t.email}>: ticket code ${t.ticketCode}`),
    "",
    input.invoice ? `Your invoice ${input.invoice.invoice.number} is attached.` : undefined,
    "Show the ticket code, or its QR code, at the entrance.",
    "",
    "If you did not place this order, reply to the organizer of the event.",
  ].filter((line): line is string => line !== undefined);
  return {
    to: order.buyerEmail,
    subject: `Your order ${order.code} for ${projectName}`,
    text: text.join("\n"),
    attachments: [
      ...tickets.map((t) => ticketAttachment(t.ticketCode, t.name)),
      ...(input.invoice
        ? [
            {
              filename: `${input.invoice.invoice.number.replaceAll("/", "-")}.pdf`,
              contentType: "application/pdf",
              content: input.invoice.pdf,
            },
          ]
        : []),
    ],
  };
}
