import type { Kysely } from "kysely";

// Version counters per area of a project's data (src/shared/data-areas.ts), bumped beside
// data_version, so the response cache evicts by what changed: a check-in leaves the agenda cached.
const columns = [
  "project_version",
  "agenda_version",
  "tickets_version",
  "attendees_version",
  "checkins_version",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of columns) {
    await db.schema
      .alterTable("projects")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of columns) await db.schema.alterTable("projects").dropColumn(column).execute();
}
