import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { AttendeeImportsTable } from "../../db/schema.js";
import { containing } from "../../shared/erasure.js";

export type AttendeeImportRow = Selectable<AttendeeImportsTable>;
type ImportProgress = Pick<AttendeeImportRow, "processed_rows" | "imported_rows" | "skipped_rows">;

/** SQL for uploaded attendee CSVs; always scoped by project. */
export const attendeeImportsRepository = {
  async insert(db: Db, row: AttendeeImportRow): Promise<void> {
    await db.insertInto("attendee_imports").values(row).execute();
  },

  find(db: Db, projectId: string, id: string): Promise<AttendeeImportRow | undefined> {
    return db
      .selectFrom("attendee_imports")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Moves a READY import to RUNNING; false when it was not READY (already started elsewhere). */
  async start(db: Db, projectId: string, id: string, mapping: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("attendee_imports")
      .set({
        status: "RUNNING",
        mapping,
        processed_rows: 0,
        imported_rows: 0,
        skipped_rows: 0,
        updated_at: at,
      })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .where("status", "=", "READY")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async progress(db: Db, projectId: string, id: string, progress: ImportProgress, at: string): Promise<void> {
    await db
      .updateTable("attendee_imports")
      .set({ ...progress, updated_at: at })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  /** Ends a run: DONE drops the file's text (no longer needed), READY lets a failed run be retried. */
  async finish(db: Db, projectId: string, id: string, status: "DONE" | "READY", at: string): Promise<void> {
    await db
      .updateTable("attendee_imports")
      .set(status === "DONE" ? { status, content: "", updated_at: at } : { status, updated_at: at })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  /** Forgets the project's uploads last touched before `before`. */
  async deleteStale(db: Db, projectId: string, before: string): Promise<void> {
    await db
      .deleteFrom("attendee_imports")
      .where("project_id", "=", projectId)
      .where("updated_at", "<", before)
      .execute();
  },

  /** The project's uploaded files that hold an address (erasure). */
  mentioning(
    trx: Db,
    projectId: string,
    email: string,
  ): Promise<Pick<AttendeeImportRow, "id" | "content">[]> {
    return trx
      .selectFrom("attendee_imports")
      .select(["id", "content"])
      .where("project_id", "=", projectId)
      .where(sql<boolean>`lower(content) like ${containing(email)} escape '\\'`)
      .execute();
  },

  async replaceContent(trx: Db, id: string, content: string): Promise<void> {
    await trx.updateTable("attendee_imports").set({ content }).where("id", "=", id).execute();
  },
};
