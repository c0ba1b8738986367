import type { Kysely } from "kysely";

// A CSV import is uploaded once, then previewed with different column mappings and finally run,
// possibly by another server process than the one that took the upload: so the file waits in the
// database, not in a process's memory. `processed_rows` lets any process draw the progress bar.
// The name index serves the attendee list sorted by name (keyset paging on (name, id)).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("attendee_imports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("row_count", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("mapping", "text")
    .addColumn("processed_rows", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("imported_rows", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("skipped_rows", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("attendee_imports_project")
    .on("attendee_imports")
    .columns(["project_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("attendees_project_name")
    .on("attendees")
    .columns(["project_id", "name", "id"])
    .execute();
  // The Overview counts check-ins per 15 minutes of the project: without it, a scan of every check-in.
  await db.schema
    .createIndex("check_ins_project_time")
    .on("check_ins")
    .columns(["project_id", "checked_in_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("check_ins_project_time").execute();
  await db.schema.dropIndex("attendees_project_name").execute();
  await db.schema.dropTable("attendee_imports").execute();
}
