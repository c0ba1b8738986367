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
 * nothing references, 0.95–1.1 ms (docs/performance.md, round eighteen).
 *
 * Additive, as every migration within a release (docs/operations.md, "Upgrades"): the old columns
 * and their notification trigger stay, so that processes of the previous release, during a rolling
 * upgrade, keep bumping and announcing their writes (each side evicts on the other's notifications:
 * both use the channel and payload of 2026-11-24T17-00_change-notifications). This release neither
 * reads nor writes them; the next one drops them.
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
  const columns = sql.join(areaColumns.map((c) => sql.ref(c)));
  await sql`insert into project_versions (project_id, ${columns}) select id, ${columns} from projects`.execute(
    db,
  );
  if (!(await isPostgres(db))) return;
  // "<project id>:<area mask>" on the channel, 31 (all areas) when the row is inserted or deleted.
  await sql`
    create function eventgraph_notify_project_versions_change() returns trigger
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
        perform pg_notify('eventgraph_project_changes', new.project_id || ':' || mask);
      elsif tg_op = 'INSERT' then
        perform pg_notify('eventgraph_project_changes', new.project_id || ':31');
      else
        perform pg_notify('eventgraph_project_changes', old.project_id || ':31');
      end if;
      return null;
    end;
    $$`.execute(db);
  await sql`
    create trigger project_versions_notify_change
    after insert or update or delete on project_versions
    for each row execute function eventgraph_notify_project_versions_change()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    await sql`drop trigger if exists project_versions_notify_change on project_versions`.execute(db);
    await sql`drop function if exists eventgraph_notify_project_versions_change()`.execute(db);
  }
  await db.schema.dropTable("project_versions").execute();
}
