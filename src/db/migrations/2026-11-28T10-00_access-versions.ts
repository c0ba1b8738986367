import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * Every fact that decides access moves the `project` area version of the projects it concerns, in
 * the database itself, in the same transaction as the change: an app's token, permissions or home
 * project; a link and its permissions; a membership; a project's status or existence; a user's
 * verification or deletion. The response cache, the remembered tokens and the remembered access are
 * all checked against that version (docs/runtime.md), so a revocation made by any writer (the
 * product, the CLI, an operator's plain SQL at 3 a.m., a future code path that forgets the rule) is
 * seen by every process: on PostgreSQL the bump is announced by the trigger on project_versions
 * (LISTEN/NOTIFY, src/db/change-feed.ts), on SQLite it moves `PRAGMA data_version` for every other
 * connection.
 *
 * Only the columns that decide access fire a trigger: an app's `last_used_at`, written as it is used,
 * must not evict the cache. test/api/access-versions.test.ts lists every table with what decides
 * access in it, and fails when a plain-SQL write to one of those does not move the version, or when
 * a table appears that the list does not classify.
 */

/** The statement that moves the `project` version of the projects `projectIds` selects. */
const bump = (projectIds: string) =>
  `update project_versions set project_version = project_version + 1 where project_id in (${projectIds})`;

/** Projects an app reaches: its home project and every project linked to it (revoked links too). */
const projectsOfApp = (app: "new" | "old") =>
  `select ${app}.project_id union select project_id from app_links where app_id = ${app}.id`;

/** Projects a user is a member of. */
const projectsOfUser = (user: "new" | "old") =>
  `select project_id from project_members where user_id = ${user}.id`;

interface AccessTrigger {
  name: string;
  table: string;
  /** `insert`, `delete`, or `update` (optionally of some columns only). */
  event: "insert" | "delete" | "update";
  columns?: readonly string[];
  /** The projects whose version moves; `new`/`old` name the row as in any trigger. */
  projects: string;
}

const appAccessColumns = ["project_id", "permissions", "token_hash"] as const;

const accessTriggers: readonly AccessTrigger[] = [
  {
    name: "projects_status",
    table: "projects",
    event: "update",
    columns: ["status"],
    projects: "select new.id",
  },
  { name: "apps_insert", table: "apps", event: "insert", projects: "select new.project_id" },
  {
    name: "apps_update",
    table: "apps",
    event: "update",
    columns: appAccessColumns,
    projects: `${projectsOfApp("old")} union select new.project_id`,
  },
  { name: "apps_delete", table: "apps", event: "delete", projects: projectsOfApp("old") },
  { name: "app_links_insert", table: "app_links", event: "insert", projects: "select new.project_id" },
  {
    name: "app_links_update",
    table: "app_links",
    event: "update",
    projects: "select old.project_id union select new.project_id",
  },
  { name: "app_links_delete", table: "app_links", event: "delete", projects: "select old.project_id" },
  { name: "members_insert", table: "project_members", event: "insert", projects: "select new.project_id" },
  {
    name: "members_update",
    table: "project_members",
    event: "update",
    projects: "select old.project_id union select new.project_id",
  },
  { name: "members_delete", table: "project_members", event: "delete", projects: "select old.project_id" },
  {
    name: "users_update",
    table: "users",
    event: "update",
    columns: ["email_verified_at"],
    projects: projectsOfUser("new"),
  },
  { name: "users_delete", table: "users", event: "delete", projects: projectsOfUser("old") },
];

/** A condition true when one of `columns` really changed (an UPDATE may set a column to itself). */
function changedCondition(columns: readonly string[] | undefined, postgres: boolean): string | undefined {
  if (!columns) return undefined;
  const distinct = postgres ? "is distinct from" : "is not";
  return columns.map((c) => `old.${c} ${distinct} new.${c}`).join(" or ");
}

/**
 * PostgreSQL's TRUNCATE fires no row trigger: an access table (or the versions themselves) emptied
 * that way would move no version and announce nothing, and every process would go on answering
 * from what it remembers and caches. It is refused, naming DELETE, which fires the triggers above.
 * SQLite has no TRUNCATE: its DELETE without WHERE skips the truncate optimization when a table has triggers.
 */
const truncateRefusedOn = ["projects", "project_versions", "apps", "app_links", "project_members", "users"];

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  if (postgres) {
    await sql
      .raw(`
        create function access_version_no_truncate() returns trigger language plpgsql as $$
        begin
          raise exception 'TRUNCATE of % would not move the access versions: use DELETE', tg_table_name;
        end;
        $$`)
      .execute(db);
    for (const table of truncateRefusedOn) {
      await sql
        .raw(`
          create trigger access_version_no_truncate before truncate on ${table}
          for each statement execute function access_version_no_truncate()`)
        .execute(db);
    }
  }
  for (const trigger of accessTriggers) {
    const when = changedCondition(trigger.columns, postgres);
    const event = trigger.columns ? `update of ${trigger.columns.join(", ")}` : trigger.event;
    const name = `access_version_${trigger.name}`;
    if (postgres) {
      await sql
        .raw(`
          create function ${name}() returns trigger language plpgsql as $$
          begin
            ${bump(trigger.projects)};
            return null;
          end;
          $$`)
        .execute(db);
      await sql
        .raw(`
          create trigger ${name} after ${event} on ${trigger.table}
          for each row ${when ? `when (${when})` : ""} execute function ${name}()`)
        .execute(db);
    } else {
      await sql
        .raw(`
          create trigger ${name} after ${event} on ${trigger.table}
          for each row ${when ? `when ${when}` : ""}
          begin ${bump(trigger.projects)}; end`)
        .execute(db);
    }
  }
  // A project deleted with foreign keys off (SQLite's shell default) would leave its versions, and
  // with them the answers cached for it: its versions go with it, whatever the connection's settings.
  if (postgres) {
    await sql
      .raw(`
        create function access_version_projects_delete() returns trigger language plpgsql as $$
        begin
          delete from project_versions where project_id = old.id;
          return null;
        end;
        $$`)
      .execute(db);
    await sql
      .raw(`
        create trigger access_version_projects_delete after delete on projects
        for each row execute function access_version_projects_delete()`)
      .execute(db);
  } else {
    await sql
      .raw(`
        create trigger access_version_projects_delete after delete on projects
        for each row begin delete from project_versions where project_id = old.id; end`)
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  if (postgres) {
    for (const table of truncateRefusedOn) {
      await sql.raw(`drop trigger if exists access_version_no_truncate on ${table}`).execute(db);
    }
    await sql.raw("drop function if exists access_version_no_truncate()").execute(db);
  }
  const names = [...accessTriggers.map((t) => [t.name, t.table]), ["projects_delete", "projects"]];
  for (const [name, table] of names) {
    if (postgres) {
      await sql.raw(`drop trigger if exists access_version_${name} on ${table}`).execute(db);
      await sql.raw(`drop function if exists access_version_${name}()`).execute(db);
    } else {
      await sql.raw(`drop trigger if exists access_version_${name}`).execute(db);
    }
  }
}
