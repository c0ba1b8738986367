import { formatDateTime } from "../../dashboard/time.js";

/**
 * The offer of a freed seat to someone on the waiting list: plain text with the personal link (the
 * only copy of its secret outside the server) and until when the seat is held for them.
 */
export function offerMail(offer: {
  to: string;
  name: string;
  event: string;
  ticketType: string;
  expiresAt: string;
  timeZone: string;
  link: string;
}): { to: string; subject: string; text: string } {
  const lines = [
    `Hello ${offer.name},`,
    "",
    `a seat of "${offer.ticketType}" for ${offer.event} is free, and it is held for you.`,
    "",
    `Take it here: ${offer.link}`,
    "",
    `The seat is held until ${formatDateTime(offer.expiresAt, offer.timeZone)} (${offer.timeZone}). After that it goes to the next person on the waiting list.`,
    "",
    "If you no longer want it, do nothing: it passes on by itself.",
  ];
  // A subject is one header line: the event's name must not add a line break to it.
  const subject = `A seat for ${offer.event} is held for you`.replace(/[\r\n]+/g, " ");
  return { to: offer.to, subject, text: lines.join("\n") };
}
