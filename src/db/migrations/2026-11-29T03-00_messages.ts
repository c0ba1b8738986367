import type { Kysely } from "kysely";

// Messages from the organizer to attendees. A message keeps what was written and for whom (the
// filter, as JSON); its recipients are rows of the ticket-mail outbox with `message_id` set, so one
// worker, one lease and one SMTP rate serve tickets and messages alike, and each recipient's
// SENT / FAILED / SKIPPED stays with the message. A scheduled message's rows are due at `send_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("filter", "text", (c) => c.notNull())
    .addColumn("send_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("messages_project")
    .on("messages")
    .columns(["project_id", "created_at"])
    .execute();
  await db.schema
    .alterTable("ticket_mails")
    .addColumn("message_id", "text", (c) => c.references("messages.id").onDelete("cascade"))
    .execute();
  // A message's recipient counts by status.
  await db.schema
    .createIndex("ticket_mails_message")
    .on("ticket_mails")
    .columns(["message_id", "status"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("ticket_mails_message").execute();
  await db.schema.alterTable("ticket_mails").dropColumn("message_id").execute();
  await db.schema.dropTable("messages").execute();
}
