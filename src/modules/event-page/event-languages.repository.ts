import type { Db } from "../../db/database.js";

/** One stored translation: a field of the project ('project') or of a ticket type (its id). */
export interface TranslationRow {
  language: string;
  subject: string;
  field: string;
  text: string;
}

/** SQL for an event's languages and the organizer's translations of its texts; scoped by project. */
export const eventLanguagesRepository = {
  /** Stores the event's languages on its page settings (a project without settings gets the defaults). */
  async saveLanguages(db: Db, projectId: string, languages: string, now: string): Promise<void> {
    await db
      .insertInto("event_page_settings")
      .values({ project_id: projectId, languages, updated_at: now })
      .onConflict((oc) => oc.column("project_id").doUpdateSet({ languages, updated_at: now }))
      .execute();
  },

  /** The translations of a project in `languages` (all of them when omitted). */
  translations(db: Db, projectId: string, languages?: readonly string[]): Promise<TranslationRow[]> {
    let query = db
      .selectFrom("event_translations")
      .select(["language", "subject", "field", "text"])
      .where("project_id", "=", projectId);
    if (languages) {
      if (languages.length === 0) return Promise.resolve([]);
      query = query.where("language", "in", languages);
    }
    return query.execute();
  },

  /** Replaces every translation of a project with `rows` (one form saves them all). */
  async replaceTranslations(db: Db, projectId: string, rows: readonly TranslationRow[]): Promise<void> {
    await db.deleteFrom("event_translations").where("project_id", "=", projectId).execute();
    if (rows.length === 0) return;
    await db
      .insertInto("event_translations")
      .values(rows.map((row) => ({ ...row, project_id: projectId })))
      .execute();
  },
};
