import { paymentLine, ticketAttachment } from "../ticket-mails/ticket-mail.js";
import type { HeldRegistration } from "./event-content.js";

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
    attachments: [ticketAttachment(attendee.ticketCode, attendee.name)],
  };
}
