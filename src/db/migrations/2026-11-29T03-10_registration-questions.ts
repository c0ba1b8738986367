import type { Kysely } from "kysely";

// Registration questions (issue #43). A project asks its own questions at registration, in the
// organizer's `position` order; `options` (a JSON array) holds the choices of a choice question;
// `ticket_type_ids` (a JSON array; null: every type) names the types it is asked for. An answer is
// one row per attendee and question, its value as JSON text (a string, a number, a boolean or an
// array of chosen options): a deleted question takes its answers with it, and so does an attendee.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("registration_questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("options", "text")
    .addColumn("ticket_type_ids", "text")
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("registration_questions_project_position")
    .on("registration_questions")
    .columns(["project_id", "position", "id"])
    .execute();

  await db.schema
    .createTable("attendee_answers")
    .addColumn("attendee_id", "text", (c) => c.notNull().references("attendees.id").onDelete("cascade"))
    .addColumn("question_id", "text", (c) =>
      c.notNull().references("registration_questions.id").onDelete("cascade"),
    )
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("attendee_answers_pk", ["attendee_id", "question_id"])
    .execute();
  // A question's deletion cascades through this index rather than a scan.
  await db.schema
    .createIndex("attendee_answers_question")
    .on("attendee_answers")
    .column("question_id")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("attendee_answers").execute();
  await db.schema.dropTable("registration_questions").execute();
}
