import { type Kysely, sql } from "kysely";

// The door's live counter (checked in / expected per ticket type) counts a project's active
// check-ins; check_ins had no index by project, so every poll from every phone at the door read the
// check-ins of all projects. Partial, like check_ins_attendee_active: undone rows are never counted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index check_ins_project_active on check_ins (project_id) where undone_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists check_ins_project_active`.execute(db);
}
