import type { Kysely } from "kysely";

// The audit log: one row per organizer action or app write, written in the transaction of the change.
// No foreign keys on purpose: an entry outlives the user, app or link it names (it stores their names
// as they were), and deleting a project replaces its entries by one tombstone without a project id
// (docs/audit-log.md), so a later project that draws the same 4-character id starts with an empty log.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text")
    .addColumn("occurred_at", "text", (c) => c.notNull())
    .addColumn("actor_kind", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("actor_label", "text", (c) => c.notNull())
    .addColumn("link_id", "text")
    .addColumn("via", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("object_type", "text", (c) => c.notNull())
    .addColumn("object_id", "text", (c) => c.notNull())
    .addColumn("changes", "text")
    .execute();
  // The audit page reads one project's log newest first; pruning reads by age alone.
  await db.schema
    .createIndex("audit_events_project_time")
    .on("audit_events")
    .columns(["project_id", "occurred_at", "id"])
    .execute();
  await db.schema.createIndex("audit_events_time").on("audit_events").column("occurred_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("audit_events").execute();
}
