import { z } from "zod";
import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  idText,
  isIsoDateTime,
  optionalMultilineText,
  parseInput,
  requiredText,
} from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type MessageFilter, messageFilter, recipientsQuery } from "./message-filter.js";
import { messageMail, placeholders, type RecipientValues, unknownPlaceholders } from "./message-mail.js";
import { messagesRepository as repo } from "./messages.repository.js";

/** The most recipients one message reaches: a bigger event sends two messages with filters. */
const maxRecipients = 20_000;

const when = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("now") }),
  z.object({ kind: z.literal("at"), at: z.string().refine(isIsoDateTime, "must be an ISO date-time") }),
  // A reminder: this many minutes before the event starts (at most 30 days).
  z.object({ kind: z.literal("beforeStart"), minutes: z.number().int().min(0).max(43_200) }),
]);

const composeInput = z.object({
  projectId: idText,
  subject: requiredText(200),
  body: optionalMultilineText(20_000).refine((v) => v !== null && v.trim() !== "", "must not be empty"),
  filter: messageFilter.default({}),
  when: when.default({ kind: "now" }),
});

/** What the organizer writes: subject, body, whom (filter) and when. */
export type ComposeInput = z.input<typeof composeInput>;

/** Refuses a placeholder that does not exist, naming the field, rather than mailing "{{nmae}}". */
function checkPlaceholders(data: { subject: string; body: string | null }) {
  const problems = (["subject", "body"] as const).flatMap((field) => {
    const unknown = unknownPlaceholders(data[field] ?? "");
    return unknown.length === 0
      ? []
      : [
          {
            field: [field],
            message: `unknown placeholder {{${unknown[0]}}}; use ${placeholders.map((p) => `{{${p}}}`).join(", ")}`,
          },
        ];
  });
  if (problems.length > 0) throw badInput(problems);
}

/** The values of one recipient row for the placeholders. */
function valuesOf(
  row: { name: string; ticket_code: string; ticket_name: string },
  projectName: string,
): RecipientValues {
  return { name: row.name, ticketCode: row.ticket_code, ticketType: row.ticket_name, event: projectName };
}

/**
 * Messages from the organizer to attendees. A message's recipients are decided when it is
 * written and queued in the ticket-mail outbox, due at its time; the worker sends each at the SMTP
 * server's rate and checks at sending that the attendee is still registered and not erased.
 */
export function createMessagesService(
  db: Db,
  access: AccessService,
  changes: ProjectChanges,
  announce: () => void,
) {
  /** The time a message's mails fall due. */
  async function sendAt(projectId: string, data: z.output<typeof composeInput>): Promise<string> {
    if (data.when.kind === "now") return nowIso();
    if (data.when.kind === "at") return new Date(data.when.at).toISOString();
    const startsAt = await repo.projectStart(db, projectId);
    if (!startsAt)
      throw badInput([
        { field: ["when"], message: "the event has no start time: set it to send a reminder" },
      ]);
    return new Date(Date.parse(startsAt) - data.when.minutes * 60_000).toISOString();
  }

  return {
    /**
     * The message as the first recipient of the filter would read it, and how many it reaches
     * (needs attendees:read: it shows one attendee's details).
     */
    async preview(actor: Actor, input: ComposeInput) {
      const data = parseInput(composeInput, input);
      checkPlaceholders(data);
      const found = await access.requirePermission(actor, data.projectId, "attendees:read");
      const project = await repo.projectName(db, found.projectId);
      const query = recipientsQuery(db, found.projectId, data.filter);
      const [first, count] = await Promise.all([query.limit(1).executeTakeFirst(), repo.countOf(db, query)]);
      const mail = first
        ? messageMail({ subject: data.subject, body: data.body ?? "" }, first.email, valuesOf(first, project))
        : undefined;
      return { recipients: count, mail, sendAt: await sendAt(found.projectId, data) };
    },

    /**
     * Writes a message and queues one mail per recipient, due now, at a time, or a set time before
     * the event starts (needs attendees:write, like resending a ticket). Audited.
     */
    async send(actor: Actor, input: ComposeInput) {
      const data = parseInput(composeInput, input);
      checkPlaceholders(data);
      const found = await access.requirePermission(actor, data.projectId, "attendees:write");
      const projectId = found.projectId;
      const due = await sendAt(projectId, data);
      const id = newId();
      // No cached answer reads messages, so the write bumps no area's version: a transaction that
      // records its event (the audit log) as members' writes do, rather than changes.write.
      const recipients = await inTransaction(db, actor, async (trx) => {
        const ids = (
          await recipientsQuery(trx, projectId, data.filter)
            .limit(maxRecipients + 1)
            .execute()
        ).map((r) => r.id);
        if (ids.length === 0) throw new AppError(ErrorCode.BAD_USER_INPUT, "No attendee matches this filter");
        if (ids.length > maxRecipients)
          throw new AppError(
            ErrorCode.BAD_USER_INPUT,
            `A message reaches at most ${maxRecipients} attendees`,
          );
        const created = nowIso();
        await repo.insert(trx, {
          id,
          project_id: projectId,
          subject: data.subject,
          body: data.body ?? "",
          filter: JSON.stringify(data.filter satisfies MessageFilter),
          send_at: due,
          created_at: created,
        });
        await repo.enqueue(trx, projectId, id, ids, due, created);
        await changes.event(trx, actor, {
          ...objectEvent(projectId, "Message", id, "created"),
          values: { subject: data.subject, recipients: ids.length, sendAt: due },
        });
        return ids.length;
      });
      announce();
      return { id, recipients, sendAt: due };
    },

    /** The project's messages, newest first, each with its recipients counted by status (attendees:read). */
    async list(actor: Actor, projectId: string) {
      const found = await access.requirePermission(actor, projectId, "attendees:read");
      return repo.list(db, found.projectId, 100);
    },

    /** One message and its recipients with their status (attendees:read); another project's is "not found". */
    async get(actor: Actor, projectId: string, messageId: string) {
      const found = await access.requirePermission(actor, projectId, "attendees:read");
      const message = await repo.get(db, found.projectId, messageId);
      if (!message) throw notFound("Message");
      return { ...message, recipients: await repo.recipients(db, found.projectId, messageId) };
    },
  };
}
