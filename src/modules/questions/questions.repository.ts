import type { Db } from "../../db/database.js";
import type { AttendeeAnswersTable, QuestionTranslationsTable } from "../../db/schema.js";
import type { QuestionRow } from "./questions.model.js";

/** SQL for registration questions and answers; always scoped by project. */
export const questionsRepository = {
  /** A project's questions in the organizer's order. */
  list(db: Db, projectId: string): Promise<QuestionRow[]> {
    return db
      .selectFrom("registration_questions")
      .selectAll()
      .where("project_id", "=", projectId)
      .orderBy("position")
      .orderBy("id")
      .execute();
  },

  find(db: Db, projectId: string, id: string): Promise<QuestionRow | undefined> {
    return db
      .selectFrom("registration_questions")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for by-id mutations: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<QuestionRow | undefined> {
    return db.selectFrom("registration_questions").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async insert(db: Db, row: QuestionRow): Promise<void> {
    await db.insertInto("registration_questions").values(row).execute();
  },

  async update(db: Db, projectId: string, id: string, patch: Partial<QuestionRow>): Promise<void> {
    await db
      .updateTable("registration_questions")
      .set(patch)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async delete(db: Db, projectId: string, id: string): Promise<void> {
    // Answers and translations go first: SQLite enforces the cascade only with foreign keys on, so
    // say it here too.
    await db
      .deleteFrom("attendee_answers")
      .where("project_id", "=", projectId)
      .where("question_id", "=", id)
      .execute();
    await db
      .deleteFrom("question_translations")
      .where("project_id", "=", projectId)
      .where("question_id", "=", id)
      .execute();
    await db
      .deleteFrom("registration_questions")
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  /** A project's question translations: all of them, or one language's (what a page in it reads). */
  translations(db: Db, projectId: string, language?: string): Promise<QuestionTranslationsTable[]> {
    let query = db.selectFrom("question_translations").selectAll().where("project_id", "=", projectId);
    if (language !== undefined) query = query.where("language", "=", language);
    return query.execute();
  },

  /** The translations of some questions, with each question's options (to line them up). */
  translationsOfQuestions(db: Db, questionIds: readonly string[]) {
    return db
      .selectFrom("question_translations as t")
      .innerJoin("registration_questions as q", "q.id", "t.question_id")
      .selectAll("t")
      .select("q.options as question_options")
      .where("t.question_id", "in", questionIds)
      .orderBy("t.question_id")
      .orderBy("t.language")
      .execute();
  },

  /** Replaces one question's translations with `rows` (the question's form saves them all). */
  async replaceTranslations(
    db: Db,
    projectId: string,
    questionId: string,
    rows: readonly QuestionTranslationsTable[],
  ): Promise<void> {
    await db
      .deleteFrom("question_translations")
      .where("project_id", "=", projectId)
      .where("question_id", "=", questionId)
      .execute();
    if (rows.length > 0)
      await db
        .insertInto("question_translations")
        .values([...rows])
        .execute();
  },

  /** Unscoped: an attendee's project and ticket type, for a by-id answer change (access resolved after). */
  attendee(
    db: Db,
    id: string,
  ): Promise<{ id: string; project_id: string; ticket_type_id: string } | undefined> {
    return db
      .selectFrom("attendees")
      .select(["id", "project_id", "ticket_type_id"])
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Which of `ids` are ticket types of the project. */
  /** The answers of some attendees of a project (one query for a page of attendees). */
  answersOf(db: Db, projectId: string, attendeeIds: readonly string[]): Promise<AttendeeAnswersTable[]> {
    if (attendeeIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("attendee_answers")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("attendee_id", "in", attendeeIds)
      .execute();
  },

  /**
   * Unscoped: the answers of attendees the caller already read (the API's `Attendee.answers`), with
   * their questions, in each project's question order.
   */
  answersWithQuestions(db: Db, attendeeIds: readonly string[]) {
    return db
      .selectFrom("attendee_answers as a")
      .innerJoin("registration_questions as q", "q.id", "a.question_id")
      .selectAll("q")
      .select(["a.attendee_id", "a.value"])
      .where("a.attendee_id", "in", attendeeIds)
      .orderBy("q.position")
      .orderBy("q.id")
      .execute();
  },

  /** Sets (or, for null, removes) one attendee's answers to the named questions. */
  async saveAnswers(
    db: Db,
    projectId: string,
    attendeeId: string,
    answers: ReadonlyMap<string, unknown>,
    now: string,
  ): Promise<void> {
    const ids = [...answers.keys()];
    if (ids.length === 0) return;
    await db
      .deleteFrom("attendee_answers")
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .where("question_id", "in", ids)
      .execute();
    const rows = [...answers]
      .filter(([, value]) => value !== null)
      .map(([questionId, value]) => ({
        attendee_id: attendeeId,
        question_id: questionId,
        project_id: projectId,
        value: JSON.stringify(value),
        updated_at: now,
      }));
    if (rows.length > 0) await db.insertInto("attendee_answers").values(rows).execute();
  },

  /** Removes every answer of one attendee (erasure). */
  async deleteAnswersOf(db: Db, attendeeId: string): Promise<void> {
    await db.deleteFrom("attendee_answers").where("attendee_id", "=", attendeeId).execute();
  },
};
