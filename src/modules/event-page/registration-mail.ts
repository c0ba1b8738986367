import type { Translator } from "../../shared/i18n/translator.js";
import { paymentLine, ticketAttachment } from "../ticket-mails/ticket-mail.js";
import type { HeldRegistration } from "./event-content.js";
import { projectSubject } from "./event-languages.js";

/**
 * The confirmation of a registration on the event page, in the language the attendee registered in:
 * plain text with the manage link (the only copy of its secret). `existing`: the address already had
 * a registration and asked again. `named` gives the event's and ticket type's names in that language.
 */
export function registrationMail(
  held: HeldRegistration & { link: string; existing: boolean },
  words: Translator,
  named: (subject: string, own: string) => string,
) {
  const { attendee, project, ticketType } = held;
  const event = named(projectSubject, project.name);
  const { t } = words;
  const lines = [
    t("mail.hello", { name: attendee.name }),
    "",
    held.existing ? t("mail.existing", { event }) : t("mail.registered", { event }),
    "",
    t("mail.ticket", { ticket: ticketType ? named(ticketType.id, ticketType.name) : "—" }),
    t("mail.code", { code: attendee.ticketCode }),
    paymentLine(ticketType, words),
    "",
    t("mail.showCode"),
    "",
    t("mail.manageLink"),
    held.link,
    "",
    t("mail.notRegistered"),
  ].filter((line): line is string => line !== undefined);
  return {
    to: attendee.email,
    subject: t("mail.registrationSubject", { event }),
    text: lines.join("\n"),
    link: held.link,
    attachments: [ticketAttachment(attendee.ticketCode, t("manage.qr", { name: attendee.name }))],
  };
}
