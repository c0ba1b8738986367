import type { Kysely } from "kysely";

// Registration questions in the event's languages (issue #43).
// - `registration_questions.help`: a line of help under the question (null: none), in the event's
//   first language like the label and options.
// - `question_translations`: a question's texts in one of the event's other languages: its label,
//   help and options (a JSON object from each option as the organizer wrote it to its translation).
//   Answers keep storing the option as written, so the stored value, the CSV and the API do not
//   depend on the language the attendee answered in. A deleted question takes its rows with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("registration_questions").addColumn("help", "text").execute();
  await db.schema
    .createTable("question_translations")
    .addColumn("question_id", "text", (c) =>
      c.notNull().references("registration_questions.id").onDelete("cascade"),
    )
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("label", "text")
    .addColumn("help", "text")
    .addColumn("options", "text")
    .addPrimaryKeyConstraint("question_translations_pk", ["question_id", "language"])
    .execute();
  // The event page reads one language of a project's questions at a time.
  await db.schema
    .createIndex("question_translations_project_language")
    .on("question_translations")
    .columns(["project_id", "language"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("question_translations").execute();
  await db.schema.alterTable("registration_questions").dropColumn("help").execute();
}
