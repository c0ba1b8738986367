import type { Kysely } from "kysely";
import { sql } from "kysely";

/**
 * Bulk operations' results move from files under one process's data folder into the database, as
 * chunks of JSON Lines: a job run by one process is downloaded through any other (two processes
 * behind a load balancer each had their own folder), a backup carries them, erasing an attendee can
 * find and drop them, and deleting the project deletes them (its key, by cascade). Results finished
 * before this migration lived in files it cannot read: they are marked EXPIRED (apps start them
 * again), and the old `bulk` folder may be deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bulk_operation_chunks")
    .addColumn("operation_id", "text", (c) =>
      c.notNull().references("bulk_operations.id").onDelete("cascade"),
    )
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("lines", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("bulk_operation_chunks_pk", ["operation_id", "seq"])
    .execute();
  await db.schema
    .createIndex("bulk_operation_chunks_project")
    .on("bulk_operation_chunks")
    .column("project_id")
    .execute();
  await sql`UPDATE bulk_operations SET status = 'EXPIRED' WHERE status = 'COMPLETED'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("bulk_operation_chunks").execute();
}
