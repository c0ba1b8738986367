import type { Generated } from "kysely";

/*
 * Mail to attendees: the ticket-mail outbox and organizers' messages. The database as a whole:
 * ../schema.ts.
 */

/** PENDING: waiting to be sent (or retried); SENT; FAILED: gave up after the last retry; SKIPPED: cancelled before it went out. */
export type TicketMailStatus = "PENDING" | "SENT" | "FAILED" | "SKIPPED";

/** One ticket email in the outbox (see migrations/2026-11-28T10-00_ticket-mails.ts). */
export interface TicketMailsTable {
  id: string;
  project_id: string;
  /** The attendee the mail is about; null only for a waiting-list offer (`waiting_entry_id`). */
  attendee_id: string | null;
  /** Set for an order's confirmation to its buyer (about all its tickets); null for one ticket's email. */
  order_id: Generated<string | null>;
  /** Set for one recipient of an organizer's message (modules/messages); null for a ticket email. */
  message_id: Generated<string | null>;
  /** Set for a waiting-list offer to the entry's person (modules/waiting-list). */
  waiting_entry_id: Generated<string | null>;
  status: TicketMailStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** While set and in the future, one worker is sending it. */
  lease_until: string | null;
  lease_token: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** An organizer's message to attendees (see migrations/2026-11-29T03-00_messages.ts). */
export interface MessagesTable {
  id: string;
  project_id: string;
  subject: string;
  body: string;
  /** The recipients' filter as JSON (modules/messages/message-filter.ts). */
  filter: string;
  /** When its mails fall due: its creation for "send now". */
  send_at: string;
  created_at: string;
}
