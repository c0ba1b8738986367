import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * PostgreSQL only: every committed change of a project's data versions is announced on the channel
 * `eventgraph_project_changes` as "<project id>:<area mask>" (src/shared/data-areas.ts), so each
 * server process evicts what it cached as soon as any process (another server, the CLI) commits,
 * instead of reading the versions on every cache hit (src/db/change-feed.ts). A trigger rather than
 * a call beside each write: every writer is covered, raw SQL included, and NOTIFY is sent at commit
 * only, so a rolled-back write announces nothing. SQLite learns of other processes' commits from
 * `PRAGMA data_version` instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
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
        -- A bump of data_version alone (an older writer) may concern anything.
        if mask = 0 and new.data_version <> old.data_version then mask := 31; end if;
        if mask = 0 then return null; end if;
        perform pg_notify('eventgraph_project_changes', new.id || ':' || mask);
      elsif tg_op = 'INSERT' then
        perform pg_notify('eventgraph_project_changes', new.id || ':31');
      else
        perform pg_notify('eventgraph_project_changes', old.id || ':31');
      end if;
      return null;
    end;
    $$`.execute(db);
  await sql`
    create trigger projects_notify_change
    after insert or update or delete on projects
    for each row execute function eventgraph_notify_project_change()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql`drop trigger if exists projects_notify_change on projects`.execute(db);
  await sql`drop function if exists eventgraph_notify_project_change()`.execute(db);
}
