import type { Kysely } from "kysely";

/**
 * Manage links sent after the first, for a visitor who registers again with the same email: each
 * repeat mails a new link beside the ones already sent instead of replacing the registration's
 * secret, which let anyone who knew the email kill every link the registrant held. Only the hash
 * of a link's secret is stored; a link goes with its attendee or project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("registration_links")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("attendee_id", "text", (c) => c.notNull().references("attendees.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("registration_links_attendee")
    .on("registration_links")
    .column("attendee_id")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("registration_links").execute();
}
