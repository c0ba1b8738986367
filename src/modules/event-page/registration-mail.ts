import { formatMoney } from "../../shared/money.js";
import { qrSvg } from "../../shared/qr.js";
import type { TicketType } from "../tickets/tickets.service.js";
import type { HeldRegistration } from "./event-content.js";

/** How a paid ticket bought on the page is paid, in the words of the confirmation email. */
function paymentLine(ticketType: TicketType | undefined): string | undefined {
  if (!ticketType || ticketType.priceMinor === 0) return undefined;
  const price = formatMoney(ticketType.priceMinor, ticketType.currency);
  if (ticketType.paymentMode === "AT_DOOR") return `Price: ${price}, paid at the door.`;
  if (ticketType.paymentMode === "INVOICE") return `Price: ${price}; the organizer will send you an invoice.`;
  return `Price: ${price}.`;
}

/**
 * The confirmation of a registration on the event page: plain text with the manage link (the only
 * copy of its secret). `existing`: the address already had a registration and asked again.
 */
export function registrationMail(held: HeldRegistration & { link: string; existing: boolean }) {
  const { attendee, project, ticketType } = held;
  const lines = [
    `Hello ${attendee.name},`,
    "",
    held.existing
      ? `You asked to register for ${project.name}, and this address already has a registration. Here it is again.`
      : `you are registered for ${project.name}.`,
    "",
    `Ticket: ${ticketType?.name ?? "—"}`,
    `Ticket code: ${attendee.ticketCode}`,
    paymentLine(ticketType),
    "",
    "Show the ticket code, or the QR code attached to this email, at the entrance.",
    "",
    "See or cancel your registration (keep this link to yourself; anyone who has it can cancel):",
    held.link,
    "",
    "If you did not register, ignore this email or cancel with the link above.",
  ].filter((line): line is string => line !== undefined);
  return {
    to: attendee.email,
    subject: `Your registration for ${project.name}`,
    text: lines.join("\n"),
    link: held.link,
    // An SVG attachment rather than an inline image: mail clients that block remote or inline
    // images still open an attachment, and the code itself is in the text.
    attachments: [
      {
        filename: `ticket-${attendee.ticketCode}.svg`,
        contentType: "image/svg+xml",
        content: qrSvg(attendee.ticketCode, `Ticket QR code of ${attendee.name}`),
      },
    ],
  };
}
