import type { Kysely } from "kysely";

// The outbox of ticket emails (dashboard registrations, CSV imports, "Resend ticket"). A row is
// written in the transaction that registers the attendee, so a registration never commits without
// its mail queued; a worker sends them at the rate the SMTP server accepts and retries failures.
// `lease_until`/`lease_token` let several server processes share the queue without sending twice.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("ticket_mails")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("attendee_id", "text", (c) => c.notNull().references("attendees.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text")
    .addColumn("lease_token", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("sent_at", "text")
    .execute();
  // The worker's claim: due PENDING rows in order.
  await db.schema
    .createIndex("ticket_mails_due")
    .on("ticket_mails")
    .columns(["status", "next_attempt_at"])
    .execute();
  // The attendee page's "last sent" and the project's queue count.
  await db.schema
    .createIndex("ticket_mails_attendee")
    .on("ticket_mails")
    .columns(["attendee_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("ticket_mails_project")
    .on("ticket_mails")
    .columns(["project_id", "status"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("ticket_mails").execute();
}
