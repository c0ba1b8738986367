import type { Kysely } from "kysely";

// A counter bumped by every write to a project's data. The API's response cache compares it on each
// hit, so an answer cached by one process is never served after a write by any other process (a
// second server, or the CLI), with or without Redis.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("data_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("projects").dropColumn("data_version").execute();
}
