import type { Db, Tx } from "../../db/database.js";
import type { ErasedPerson } from "../../shared/erasure.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import type { Mailer } from "../accounts/mailer.js";
import { type LatestTicketMail, ticketMailsRepository as repo } from "./ticket-mails.repository.js";

/**
 * Queues the ticket emails of attendees just registered, inside the registering transaction (the
 * CSV import's batches): they commit, or roll back, together. Wake the worker after the commit.
 */
export function queueTicketMails(trx: Db, projectId: string, attendeeIds: readonly string[]): Promise<void> {
  return repo.enqueue(trx, projectId, attendeeIds, nowIso());
}

/** Queues the email of a waiting-list offer, inside the transaction that made the offer; wake the worker after. */
export function queueOfferMail(trx: Db, projectId: string, entryId: string): Promise<void> {
  return repo.enqueueOffer(trx, projectId, entryId, nowIso());
}

/**
 * Queues the confirmation of an order to its buyer (all its tickets, the invoice attached), inside
 * the transaction that paid or placed it; `firstTicketId` is one of its tickets (the row's attendee).
 */
export function queueOrderMail(trx: Db, projectId: string, orderId: string, firstTicketId: string) {
  return repo.enqueueOrder(trx, projectId, orderId, firstTicketId, nowIso());
}

/**
 * Queues an order's confirmation again ("Resend confirmation"), unless one already waits: repeated
 * clicks or a script cannot pile mails on the buyer's inbox. Answers whether one was queued.
 */
export async function requeueOrderMail(db: Db, projectId: string, orderId: string, firstTicketId: string) {
  if (await repo.orderPending(db, projectId, orderId)) return false;
  await repo.enqueueOrder(db, projectId, orderId, firstTicketId, nowIso());
  return true;
}

/** The most attendees one "Resend ticket" request queues (the list's bulk action sends a page or two). */
const maxPerRequest = 100;

/**
 * Ticket emails to attendees the organizer registered, imported or picked: queued in the outbox
 * and sent by the worker (ticket-mail-worker.ts) at the SMTP server's rate.
 */
export function createTicketMailsService(db: Db, access: AccessService, mailer: Mailer) {
  const listeners = new Set<() => void>();
  const announce = () => {
    for (const listener of listeners) listener();
  };
  return {
    /** False when the server has no SMTP server: screens say so instead of "sent". */
    delivers: mailer.delivers,

    /** Calls `listener` after this process queued mails (the worker wakes); returns the unsubscribe. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Tells the local worker that mails were queued outside `send` (the import's batches). */
    announce,

    /**
     * Queues the ticket of each REGISTERED attendee among `attendeeIds` in the project (others are
     * ignored, like ids of another project); needs attendees:write. An attendee whose ticket already
     * waits gets no second one, so repeated clicks (or a script) cannot pile mails on one inbox.
     * Answers how many attendees' tickets are on their way.
     */
    async send(actor: Actor, projectId: string, attendeeIds: readonly string[]): Promise<number> {
      const found = await access.requirePermission(actor, projectId, "attendees:write");
      const ids = [...new Set(attendeeIds)].slice(0, maxPerRequest);
      if (ids.length === 0) return 0;
      const rows = await db
        .selectFrom("attendees")
        .select("id")
        .where("project_id", "=", found.projectId)
        .where("id", "in", ids)
        .where("status", "=", "REGISTERED")
        .execute();
      const waiting = await repo.pendingOf(db, found.projectId, ids);
      const fresh = rows.map((r) => r.id).filter((id) => !waiting.has(id));
      await repo.enqueue(db, found.projectId, fresh, nowIso());
      if (fresh.length > 0) announce();
      return rows.length;
    },

    /** The newest ticket email of each of these attendees (needs attendees:read, like the list). */
    latest(
      projectAccess: ProjectAccess,
      attendeeIds: readonly string[],
    ): Promise<Map<string, LatestTicketMail>> {
      return repo.latestOf(db, projectAccess.projectId, attendeeIds);
    },
  };
}

/** An erased attendee gets no ticket email, and no stored error keeps their address (wired by services.ts). */
export function forgetTicketMailsOf(trx: Tx, person: ErasedPerson): Promise<void> {
  return repo.forgetAttendee(trx, person.projectId, person.attendeeId);
}
