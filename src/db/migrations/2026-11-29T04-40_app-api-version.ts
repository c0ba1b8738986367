import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * The API version each app is pinned to (issue #41): answered when its request names none. Apps
 * that existed before versions were built against the first version, 2026-09-01, and stay on it;
 * the service pins a new app to the newest version.
 *
 * The pin is remembered with the app's token (graphql/authentication.ts), so changing it must move
 * the access version as a change of the token or the permissions does: the `apps_update` trigger
 * of 2026-11-28T10-00_access-versions fires for `api_version` too from here on (the function or
 * statement it runs is unchanged).
 */
const before = ["project_id", "permissions", "token_hash"];
const after = [...before, "api_version"];

const bump = `update project_versions set project_version = project_version + 1 where project_id in (select old.project_id union select project_id from app_links where app_id = old.id union select new.project_id)`;

async function triggerOn(db: Kysely<unknown>, columns: readonly string[]): Promise<void> {
  const postgres = await isPostgres(db);
  const name = "access_version_apps_update";
  const when = columns
    .map((c) => `old.${c} ${postgres ? "is distinct from" : "is not"} new.${c}`)
    .join(" or ");
  if (postgres) {
    await sql.raw(`drop trigger if exists ${name} on apps`).execute(db);
    await sql
      .raw(`create trigger ${name} after update of ${columns.join(", ")} on apps
        for each row when (${when}) execute function ${name}()`)
      .execute(db);
  } else {
    await sql.raw(`drop trigger if exists ${name}`).execute(db);
    await sql
      .raw(`create trigger ${name} after update of ${columns.join(", ")} on apps
        for each row when ${when}
        begin ${bump}; end`)
      .execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("apps")
    .addColumn("api_version", "text", (c) => c.notNull().defaultTo("2026-09-01"))
    .execute();
  await triggerOn(db, after);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await triggerOn(db, before);
  await db.schema.alterTable("apps").dropColumn("api_version").execute();
}
