import type { Kysely } from "kysely";

// The webhook claim reads the head of each app + project queue instead of checking every pending
// row against every earlier one: with `status` first, the pending rows of one queue are one range
// in `seq` order, and the distinct queues are found by skipping from one (app, project) to the
// next (a loose index scan). It replaces the ordering index, whose only reader was the old claim.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_queue")
    .on("webhook_deliveries")
    .columns(["status", "app_id", "project_id", "seq"])
    .execute();
  await db.schema.dropIndex("webhook_deliveries_order").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_order")
    .on("webhook_deliveries")
    .columns(["app_id", "project_id", "status", "seq"])
    .execute();
  await db.schema.dropIndex("webhook_deliveries_queue").execute();
}
