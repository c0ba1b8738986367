import type { Kysely } from "kysely";

// The event page and attendee emails in the attendee's language (issue #43).
// - `event_page_settings.languages`: the event's languages as a comma list ("de,en"), the first being
//   the language its own texts are written in; 'en' keeps every existing event as it was.
// - `event_translations`: the organizer's texts in the event's other languages, one row per language,
//   subject ('project' or a ticket type's id) and field ('name', 'description'). A ticket type's
//   rows outlive it unread (nothing looks them up by a deleted id); the project's deletion takes all.
// - `attendees.language`: the language the attendee registered in; null (registered by the
//   organizer, imported, older rows) means the event's first language.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("event_page_settings")
    .addColumn("languages", "text", (c) => c.notNull().defaultTo("en"))
    .execute();
  await db.schema
    .createTable("event_translations")
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_translations_pk", ["project_id", "language", "subject", "field"])
    .execute();
  await db.schema.alterTable("attendees").addColumn("language", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("attendees").dropColumn("language").execute();
  await db.schema.dropTable("event_translations").execute();
  await db.schema.alterTable("event_page_settings").dropColumn("languages").execute();
}
