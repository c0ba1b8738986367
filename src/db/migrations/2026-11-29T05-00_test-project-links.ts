import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * A test project's app stays in its sandbox (issue 41): no link may connect an app whose home
 * project is a test project to any project, whatever path writes the link, so a test project's
 * token never reaches a real project. The service refuses it with a message first; this is the
 * backstop (a trigger on each engine: a CHECK cannot read another table).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    await sql`create function app_links_test_app_stays_home() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from apps a join projects p on p.id = a.project_id
                   where a.id = new.app_id and p.is_test <> 0) then
          raise exception 'app_links_test_app_stays_home' using errcode = '23514';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger app_links_test_app_stays_home before insert or update of app_id on app_links
      for each row execute function app_links_test_app_stays_home()`.execute(db);
    return;
  }
  for (const event of ["insert", "update of app_id"]) {
    await sql
      .raw(
        `create trigger app_links_test_app_stays_home_${event.split(" ")[0]} before ${event} on app_links
         when (select p.is_test from apps a join projects p on p.id = a.project_id where a.id = new.app_id) <> 0
         begin select raise(abort, 'CHECK constraint failed: app_links_test_app_stays_home'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    await sql`drop trigger app_links_test_app_stays_home on app_links`.execute(db);
    await sql`drop function app_links_test_app_stays_home()`.execute(db);
    return;
  }
  for (const event of ["insert", "update"]) {
    await sql.raw(`drop trigger app_links_test_app_stays_home_${event}`).execute(db);
  }
}
