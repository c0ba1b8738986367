import { sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { TicketMailStatus } from "../../db/schema.js";
import { newId } from "../../shared/ids.js";

/** A claimed outbox row: what the worker needs to build and send one ticket email. */
export interface ClaimedTicketMail {
  id: string;
  project_id: string;
  attendee_id: string | null;
  /** Set for an order's confirmation to its buyer. */
  order_id: string | null;
  /** Set for one recipient of an organizer's message (modules/messages). */
  message_id: string | null;
  /** Set for a waiting-list offer (modules/waiting-list); then there is no attendee. */
  waiting_entry_id: string | null;
  attempts: number;
}

/** The ticket-mail outbox; it imports nothing of the attendees module, so both can use it. */
export const ticketMailsRepository = {
  /** Queues one ticket email per attendee, due now (inside the caller's transaction when given one). */
  async enqueue(db: Db, projectId: string, attendeeIds: readonly string[], now: string): Promise<void> {
    // 500 rows per statement stays under SQLite's and PostgreSQL's bound-parameter limits.
    for (let start = 0; start < attendeeIds.length; start += 500) {
      const rows = attendeeIds.slice(start, start + 500).map((attendeeId) => ({
        id: newId(),
        project_id: projectId,
        attendee_id: attendeeId,
        status: "PENDING" as const,
        next_attempt_at: now,
        created_at: now,
      }));
      await db.insertInto("ticket_mails").values(rows).execute();
    }
  },

  /** Queues an order's confirmation to its buyer, due now, inside the transaction that paid or placed it. */
  async enqueueOrder(
    db: Db,
    projectId: string,
    orderId: string,
    attendeeId: string,
    now: string,
  ): Promise<void> {
    await db
      .insertInto("ticket_mails")
      .values({
        id: newId(),
        project_id: projectId,
        attendee_id: attendeeId,
        order_id: orderId,
        status: "PENDING",
        next_attempt_at: now,
        created_at: now,
      })
      .execute();
  },

  /** Queues the email of a waiting-list offer, due now, inside the transaction that made the offer. */
  async enqueueOffer(db: Db, projectId: string, entryId: string, now: string): Promise<void> {
    await db
      .insertInto("ticket_mails")
      .values({
        id: newId(),
        project_id: projectId,
        attendee_id: null,
        waiting_entry_id: entryId,
        status: "PENDING",
        next_attempt_at: now,
        created_at: now,
      })
      .execute();
  },

  /** Whether an order's confirmation waits to be sent. */
  async orderPending(db: Db, projectId: string, orderId: string): Promise<boolean> {
    const row = await db
      .selectFrom("ticket_mails")
      .select("id")
      .where("project_id", "=", projectId)
      .where("order_id", "=", orderId)
      .where("status", "=", "PENDING")
      .executeTakeFirst();
    return row !== undefined;
  },

  /**
   * Leases up to `limit` due rows to `token` and returns them. The outer lease condition is
   * checked again on the locked row, so two processes claiming at once never both get a row.
   */
  async claim(db: Db, options: { now: string; leaseUntil: string; token: string; limit: number }) {
    const { now } = options;
    const due = db
      .selectFrom("ticket_mails")
      .select("id")
      .where("status", "=", "PENDING")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("next_attempt_at")
      .limit(options.limit);
    await db
      .updateTable("ticket_mails")
      .set({ lease_until: options.leaseUntil, lease_token: options.token })
      .where("id", "in", due)
      .where("status", "=", "PENDING")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .execute();
    return db
      .selectFrom("ticket_mails")
      .select(["id", "project_id", "attendee_id", "order_id", "message_id", "waiting_entry_id", "attempts"])
      .where("lease_token", "=", options.token)
      .where("status", "=", "PENDING")
      .orderBy("next_attempt_at")
      .execute() as Promise<ClaimedTicketMail[]>;
  },

  /** Records the result of a leased row, only while the lease is still `token`'s. */
  async settle(
    db: Db,
    id: string,
    token: string,
    result: {
      status: TicketMailStatus;
      attempts: number;
      nextAttemptAt?: string;
      error?: string | null;
      sentAt?: string | null;
    },
  ): Promise<void> {
    await db
      .updateTable("ticket_mails")
      .set({
        status: result.status,
        attempts: result.attempts,
        ...(result.nextAttemptAt ? { next_attempt_at: result.nextAttemptAt } : {}),
        last_error: result.error ?? null,
        sent_at: result.sentAt ?? null,
        lease_until: null,
        lease_token: null,
      })
      .where("id", "=", id)
      .where("lease_token", "=", token)
      .execute();
  },

  /**
   * When the next PENDING row falls due, if any: a row another process holds under its lease is due
   * when that lease ends, not before (otherwise every other worker would poll it in a loop).
   */
  async nextDue(db: Db): Promise<string | undefined> {
    const row = await db
      .selectFrom("ticket_mails")
      .select(
        sql<string>`min(case when lease_until > next_attempt_at then lease_until else next_attempt_at end)`.as(
          "due",
        ),
      )
      .where("status", "=", "PENDING")
      .executeTakeFirst();
    return row?.due ?? undefined;
  },

  /** The newest ticket email of each attendee: its status and when it was sent or queued. */
  async latestOf(db: Db, projectId: string, attendeeIds: readonly string[]) {
    if (attendeeIds.length === 0) return new Map<string, LatestTicketMail>();
    const rows = await db
      .selectFrom("ticket_mails")
      .select(["attendee_id", "status", "created_at", "sent_at", "last_error"])
      .where("project_id", "=", projectId)
      .where("attendee_id", "in", attendeeIds)
      // An order's confirmation is the buyer's mail, and a message is no ticket email.
      .where("order_id", "is", null)
      .where("message_id", "is", null)
      .orderBy("created_at")
      .execute();
    const latest = new Map<string, LatestTicketMail>();
    for (const row of rows) if (row.attendee_id) latest.set(row.attendee_id, row);
    return latest;
  },

  /** Which of these attendees have a ticket email waiting to be sent. */
  async pendingOf(db: Db, projectId: string, attendeeIds: readonly string[]): Promise<Set<string>> {
    if (attendeeIds.length === 0) return new Set();
    const rows = await db
      .selectFrom("ticket_mails")
      .select("attendee_id")
      .where("project_id", "=", projectId)
      .where("attendee_id", "in", attendeeIds)
      .where("order_id", "is", null)
      .where("message_id", "is", null)
      .where("status", "=", "PENDING")
      .execute();
    return new Set(rows.flatMap((r) => (r.attendee_id ? [r.attendee_id] : [])));
  },

  /**
   * An erased attendee's ticket emails: a queued one is not sent (SKIPPED), and no stored error (a
   * server's reply may quote the address) is kept.
   */
  async forgetAttendee(trx: Db, projectId: string, attendeeId: string): Promise<void> {
    await trx
      .updateTable("ticket_mails")
      .set({ status: "SKIPPED", lease_until: null, lease_token: null })
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .where("status", "=", "PENDING")
      .execute();
    await trx
      .updateTable("ticket_mails")
      .set({ last_error: null })
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .execute();
  },
};

/** An attendee's newest ticket email as the dashboard shows it. */
export interface LatestTicketMail {
  status: TicketMailStatus;
  created_at: string;
  sent_at: string | null;
  last_error: string | null;
}
