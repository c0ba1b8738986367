import type { Kysely } from "kysely";
import { sql } from "kysely";

// Deliveries keep order per object, not per app + project (issue #44): the claim reads the head of
// each app's pending deliveries across its projects in `seq` order, and finds the apps with pending
// work by skipping from one app to the next. A partial index holds only the pending rows, so it
// stays small however long the delivery log grows; the queries name `status = 'PENDING'` literally
// so both engines' planners can use it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (app_id, seq) WHERE status = 'PENDING'`.execute(
    db,
  );
  await db.schema.dropIndex("webhook_deliveries_queue").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_queue")
    .on("webhook_deliveries")
    .columns(["status", "app_id", "project_id", "seq"])
    .execute();
  await db.schema.dropIndex("webhook_deliveries_pending").execute();
}
