import type { SelectQueryBuilder } from "kysely";
import type { Db } from "../../db/database.js";
import type { MessagesTable, TicketMailStatus } from "../../db/schema.js";
import { newId } from "../../shared/ids.js";

/** A message in the list, with its recipients counted by status. */
export interface MessageSummary {
  id: string;
  subject: string;
  send_at: string;
  created_at: string;
  counts: Record<TicketMailStatus, number>;
}

const noCounts = (): Record<TicketMailStatus, number> => ({ PENDING: 0, SENT: 0, FAILED: 0, SKIPPED: 0 });

/** The messages SQL; every read takes the project's id. */
export const messagesRepository = {
  async projectName(db: Db, projectId: string): Promise<string> {
    const row = await db.selectFrom("projects").select("name").where("id", "=", projectId).executeTakeFirst();
    return row?.name ?? "";
  },

  async projectStart(db: Db, projectId: string): Promise<string | null> {
    const row = await db
      .selectFrom("projects")
      .select("starts_at")
      .where("id", "=", projectId)
      .executeTakeFirst();
    return row?.starts_at ?? null;
  },

  /** How many rows a recipients query picks. */
  // biome-ignore lint/suspicious/noExplicitAny: any select query over attendees
  async countOf(db: Db, query: SelectQueryBuilder<any, any, { id: string }>): Promise<number> {
    const row = await db
      .selectFrom(query.as("r"))
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async insert(db: Db, row: MessagesTable): Promise<void> {
    await db.insertInto("messages").values(row).execute();
  },

  /** One outbox row per recipient, due at `due`, in the caller's transaction. */
  async enqueue(
    db: Db,
    projectId: string,
    messageId: string,
    attendeeIds: readonly string[],
    due: string,
    now: string,
  ): Promise<void> {
    // 500 rows per statement stays under SQLite's and PostgreSQL's bound-parameter limits.
    for (let start = 0; start < attendeeIds.length; start += 500) {
      const rows = attendeeIds.slice(start, start + 500).map((attendeeId) => ({
        id: newId(),
        project_id: projectId,
        attendee_id: attendeeId,
        message_id: messageId,
        status: "PENDING" as const,
        next_attempt_at: due,
        created_at: now,
      }));
      await db.insertInto("ticket_mails").values(rows).execute();
    }
  },

  async list(db: Db, projectId: string, limit: number): Promise<MessageSummary[]> {
    const messages = await db
      .selectFrom("messages")
      .select(["id", "subject", "send_at", "created_at"])
      .where("project_id", "=", projectId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    if (messages.length === 0) return [];
    const counts = await db
      .selectFrom("ticket_mails")
      .select(["message_id", "status", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("project_id", "=", projectId)
      .where(
        "message_id",
        "in",
        messages.map((m) => m.id),
      )
      .groupBy(["message_id", "status"])
      .execute();
    const byMessage = new Map(messages.map((m) => [m.id, noCounts()]));
    for (const c of counts) {
      const entry = c.message_id ? byMessage.get(c.message_id) : undefined;
      if (entry) entry[c.status] = Number(c.n);
    }
    return messages.map((m) => ({ ...m, counts: byMessage.get(m.id) ?? noCounts() }));
  },

  async get(db: Db, projectId: string, messageId: string) {
    return db
      .selectFrom("messages")
      .select(["id", "subject", "body", "filter", "send_at", "created_at"])
      .where("project_id", "=", projectId)
      .where("id", "=", messageId)
      .executeTakeFirst();
  },

  /** A message's recipients with their mail's status (an erased attendee shows as erased). */
  async recipients(db: Db, projectId: string, messageId: string) {
    return db
      .selectFrom("ticket_mails as m")
      .innerJoin("attendees as a", "a.id", "m.attendee_id")
      .select(["a.id", "a.name", "a.email", "m.status", "m.sent_at", "m.last_error"])
      .where("m.project_id", "=", projectId)
      .where("m.message_id", "=", messageId)
      .orderBy("a.name")
      .limit(20_000)
      .execute();
  },
};
