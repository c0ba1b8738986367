import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * A project's version counters move from its row to a table of their own. Every write bumps them,
 * so on PostgreSQL the project's row was updated by every check-in, and the same row was locked
 * FOR KEY SHARE by every insert referencing the project (a check-in's project_id): a row updated
 * while others hold such locks gets a MultiXact id, and every later look at it read the MultiXact's
 * members (files of their own, opened and read per miss). With autovacuum off or behind, the row's
 * dead versions also spread the 2-row table over a hundred pages that plans cached while it was one
 * page scanned in full. A check-in cost PostgreSQL 1.1–1.4 ms of CPU; with the counters on a row
 * nothing references, 0.8 ms (docs/performance.md, round eighteen).
 *
 * data_version, bumped beside the area counters but read by nothing, is not carried over. The
 * change notification trigger (PostgreSQL) moves with the counters.
 */
const areaColumns = [
  "project_version",
  "agenda_version",
  "tickets_version",
  "attendees_version",
  "checkins_version",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  let table = db.schema
    .createTable("project_versions")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"));
  for (const column of areaColumns) {
    table = table.addColumn(column, "integer", (c) => c.notNull().defaultTo(0));
  }
  await table.execute();
  await sql`insert into project_versions (project_id, ${sql.join(areaColumns.map((c) => sql.ref(c)))})
    select id, ${sql.join(areaColumns.map((c) => sql.ref(c)))} from projects`.execute(db);
  if (await isPostgres(db)) {
    await sql`drop trigger if exists projects_notify_change on projects`.execute(db);
    await notifyFunction(db, "project_id");
    await sql`
      create trigger project_versions_notify_change
      after insert or update or delete on project_versions
      for each row execute function eventgraph_notify_project_change()`.execute(db);
  }
  for (const column of [...areaColumns, "data_version"]) {
    await db.schema.alterTable("projects").dropColumn(column).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["data_version", ...areaColumns]) {
    await db.schema
      .alterTable("projects")
      .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  for (const column of areaColumns) {
    await sql`update projects set ${sql.ref(column)} = (select ${sql.ref(column)} from project_versions v
      where v.project_id = projects.id)`.execute(db);
  }
  if (await isPostgres(db)) {
    await sql`drop trigger if exists project_versions_notify_change on project_versions`.execute(db);
    await notifyFunction(db, "id");
    await sql`
      create trigger projects_notify_change
      after insert or update or delete on projects
      for each row execute function eventgraph_notify_project_change()`.execute(db);
  }
  await db.schema.dropTable("project_versions").execute();
}

// The trigger function of 2026-11-24T17-00_change-notifications, reading the project's id from
// `idColumn` of the table it is on: "<project id>:<area mask>" on the channel, 31 (all areas) when
// the row is inserted or deleted.
async function notifyFunction(db: Kysely<unknown>, idColumn: "id" | "project_id"): Promise<void> {
  const id = sql.raw(idColumn);
  await sql`
    create or replace function eventgraph_notify_project_change() returns trigger
    language plpgsql as $$
    declare
      mask integer := 0;
    begin
      if tg_op = 'UPDATE' then
        if new.project_version <> old.project_version then mask := mask | 1; end if;
        if new.agenda_version <> old.agenda_version then mask := mask | 2; end if;
        if new.tickets_version <> old.tickets_version then mask := mask | 4; end if;
        if new.attendees_version <> old.attendees_version then mask := mask | 8; end if;
        if new.checkins_version <> old.checkins_version then mask := mask | 16; end if;
        if mask = 0 then return null; end if;
        perform pg_notify('eventgraph_project_changes', new.${id} || ':' || mask);
      elsif tg_op = 'INSERT' then
        perform pg_notify('eventgraph_project_changes', new.${id} || ':31');
      else
        perform pg_notify('eventgraph_project_changes', old.${id} || ':31');
      end if;
      return null;
    end;
    $$`.execute(db);
}
