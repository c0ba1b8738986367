import type { TicketPaymentMode } from "../../db/schema.js";
import { formatMoney } from "../../shared/money.js";
import { qrSvg } from "../../shared/qr.js";

/** What a ticket email says about the ticket's price. */
export interface PricedTicket {
  name: string;
  priceMinor: number;
  currency: string;
  paymentMode: TicketPaymentMode;
}

/** How a paid ticket is paid, in the words of the emails; undefined for a free one. */
export function paymentLine(ticketType: PricedTicket | undefined): string | undefined {
  if (!ticketType || ticketType.priceMinor === 0) return undefined;
  const price = formatMoney(ticketType.priceMinor, ticketType.currency);
  if (ticketType.paymentMode === "AT_DOOR") return `Price: ${price}, paid at the door.`;
  if (ticketType.paymentMode === "INVOICE") return `Price: ${price}; the organizer will send you an invoice.`;
  if (ticketType.paymentMode === "BANK_TRANSFER") return `Price: ${price}, paid by bank transfer.`;
  if (ticketType.paymentMode === "STRIPE") return `Price: ${price}, paid by card.`;
  return `Price: ${price}.`;
}

/** The QR code of a ticket as an email attachment. */
export function ticketAttachment(ticketCode: string, name: string) {
  // An SVG attachment rather than an inline image: mail clients that block remote or inline
  // images still open an attachment, and the code itself is in the text.
  return {
    filename: `ticket-${ticketCode}.svg`,
    contentType: "image/svg+xml",
    content: qrSvg(ticketCode, `Ticket QR code of ${name}`),
  };
}

/**
 * The ticket of an attendee the organizer registered (dashboard, import) or asked to resend: the
 * code and its QR, without a manage link (that secret exists only for registrations on the page).
 */
export function ticketMail(input: {
  attendee: { name: string; email: string; ticketCode: string };
  projectName: string;
  ticketType: PricedTicket;
}) {
  const { attendee, projectName, ticketType } = input;
  const lines = [
    `Hello ${attendee.name},`,
    "",
    `here is your ticket for ${projectName}.`,
    "",
    `Ticket: ${ticketType.name}`,
    `Ticket code: ${attendee.ticketCode}`,
    paymentLine(ticketType),
    "",
    "Show the ticket code, or the QR code attached to this email, at the entrance.",
    "",
    "If you did not expect this ticket, reply to the organizer of the event.",
  ].filter((line): line is string => line !== undefined);
  return {
    to: attendee.email,
    subject: `Your ticket for ${projectName}`,
    text: lines.join("\n"),
    attachments: [ticketAttachment(attendee.ticketCode, attendee.name)],
  };
}
