import type { TicketPaymentMode } from "../../db/schema.js";
import type { Translator } from "../../shared/i18n/translator.js";
import { qrSvg } from "../../shared/qr.js";

/** What a ticket email says about the ticket's price. */
export interface PricedTicket {
  name: string;
  priceMinor: number;
  currency: string;
  paymentMode: TicketPaymentMode;
}

const paymentKeys = {
  AT_DOOR: "pay.atDoor",
  INVOICE: "pay.invoice",
  BANK_TRANSFER: "pay.bankTransfer",
  STRIPE: "pay.card",
  NONE: "pay.other",
} as const satisfies Record<TicketPaymentMode, string>;

/** How a paid ticket is paid, in the words of the emails; undefined for a free one. */
export function paymentLine(ticketType: PricedTicket | undefined, words: Translator): string | undefined {
  if (!ticketType || ticketType.priceMinor === 0) return undefined;
  const price = words.money(ticketType.priceMinor, ticketType.currency);
  return words.t(paymentKeys[ticketType.paymentMode] ?? "pay.other", { price });
}

/**
 * The QR code of a ticket as an email attachment; `description` names it for screen readers
 * ("Ticket QR code of Ada", in the email's language).
 */
export function ticketAttachment(ticketCode: string, description: string) {
  // An SVG attachment rather than an inline image: mail clients that block remote or inline
  // images still open an attachment, and the code itself is in the text.
  return {
    filename: `ticket-${ticketCode}.svg`,
    contentType: "image/svg+xml",
    content: qrSvg(ticketCode, description),
  };
}

/**
 * The ticket of an attendee the organizer registered (dashboard, import) or asked to resend, in the
 * attendee's language: the code and its QR, without a manage link (that secret exists only for
 * registrations on the page). Names come already translated.
 */
export function ticketMail(
  input: {
    attendee: { name: string; email: string; ticketCode: string };
    projectName: string;
    ticketType: PricedTicket;
  },
  words: Translator,
) {
  const { attendee, projectName, ticketType } = input;
  const { t } = words;
  const lines = [
    t("mail.hello", { name: attendee.name }),
    "",
    t("mail.ticketIntro", { event: projectName }),
    "",
    t("mail.ticket", { ticket: ticketType.name }),
    t("mail.code", { code: attendee.ticketCode }),
    paymentLine(ticketType, words),
    "",
    t("mail.showCode"),
    "",
    t("mail.notExpected"),
  ].filter((line): line is string => line !== undefined);
  return {
    to: attendee.email,
    subject: t("mail.ticketSubject", { event: projectName }),
    text: lines.join("\n"),
    attachments: [ticketAttachment(attendee.ticketCode, t("manage.qr", { name: attendee.name }))],
  };
}
