import type { Kysely } from "kysely";
import { sql } from "kysely";

/**
 * Bulk operations (issue #44): an app's background query over a project, written as JSON Lines to a
 * file under the data folder. The lease (a time and the holder's id) lets any process claim a job
 * and lets another one see that its holder died. At most one job per app and project is unfinished:
 * a partial unique index, so two racing starts cannot both succeed, on either engine.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bulk_operations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("app_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("query", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("object_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("error", "text")
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .addColumn("expires_at", "text")
    .execute();
  await sql`CREATE UNIQUE INDEX bulk_operations_one_open ON bulk_operations (app_id, project_id) WHERE status IN ('CREATED', 'RUNNING')`.execute(
    db,
  );
  await db.schema
    .createIndex("bulk_operations_status")
    .on("bulk_operations")
    .columns(["status", "lease_until"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("bulk_operations").execute();
}
