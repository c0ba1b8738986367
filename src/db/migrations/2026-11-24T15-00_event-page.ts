import type { Kysely } from "kysely";

// The public event page (/e/<id>) and registration on it.
// - ticket_types.payment_mode: how a paid ticket is paid when registered for on the event page
//   ('NONE': not offered there, 'AT_DOOR', 'INVOICE'); free ticket types ignore it.
// - event_page_settings: the organizer's switches; a project without a row has the defaults.
// - public_registrations: what a registration made on the page adds to its attendee: the hash of the
//   secret in the manage link (the secret itself is only in the email), and the form's idempotency
//   key, unique per project, so a double submit finds the first registration instead of making one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("ticket_types")
    .addColumn("payment_mode", "text", (c) => c.notNull().defaultTo("NONE"))
    .execute();
  await db.schema
    .createTable("event_page_settings")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("page_enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("registration_open", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("company_field", "text", (c) => c.notNull().defaultTo("OPTIONAL"))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("public_registrations")
    .addColumn("attendee_id", "text", (c) => c.primaryKey().references("attendees.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("manage_token_hash", "text", (c) => c.notNull().unique())
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("public_registrations_idempotency")
    .on("public_registrations")
    .columns(["project_id", "idempotency_key"])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("public_registrations").execute();
  await db.schema.dropTable("event_page_settings").execute();
  await db.schema.alterTable("ticket_types").dropColumn("payment_mode").execute();
}
