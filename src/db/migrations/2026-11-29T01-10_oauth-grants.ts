import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * OAuth 2.0 installs (issue 41): an app's client credentials and redirect URIs, authorization codes,
 * grants (one per consent through the OAuth flow, bound to the link it rode on) and their tokens.
 * Only hashes of secrets, codes and tokens are stored.
 *
 * A grant decides access: its revocation (by the app, by reuse of a rotated refresh token, or by an
 * operator's plain SQL) moves the `project` version of its project in the database itself, as the
 * access-versions migration does for apps and links, so a remembered access token ends on every
 * process at the next request. A token row deleted by hand moves it too. Inserting a grant or a token
 * takes nothing away (an unknown token is never remembered), so inserts move nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("oauth_clients")
    .addColumn("app_id", "text", (c) => c.primaryKey().references("apps.id").onDelete("cascade"))
    .addColumn("secret_hash", "text", (c) => c.notNull())
    .addColumn("secret_last4", "text", (c) => c.notNull())
    .addColumn("secret_created_at", "text", (c) => c.notNull())
    // Newline-separated absolute URLs, compared exactly (RFC 9700 §2.1).
    .addColumn("redirect_uris", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("oauth_grants")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("link_id", "text", (c) => c.notNull().references("app_links.id").onDelete("cascade"))
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("authorized_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .addColumn("revoked_reason", "text")
    .execute();
  await db.schema.createIndex("oauth_grants_project").on("oauth_grants").column("project_id").execute();
  await db.schema.createIndex("oauth_grants_app").on("oauth_grants").column("app_id").execute();
  await db.schema
    .createTable("oauth_codes")
    .addColumn("code_hash", "text", (c) => c.primaryKey())
    .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("link_id", "text", (c) => c.notNull().references("app_links.id").onDelete("cascade"))
    .addColumn("authorized_by", "text")
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    // The grant the code was exchanged for: a second use of the code revokes it (RFC 6749 §4.1.2).
    .addColumn("grant_id", "text")
    .execute();
  await db.schema.createIndex("oauth_codes_expiry").on("oauth_codes").column("expires_at").execute();
  await db.schema
    .createTable("oauth_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("grant_id", "text", (c) => c.notNull().references("oauth_grants.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    // A refresh token's rotation: set once; a second presentation is a reuse.
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("oauth_tokens_grant").on("oauth_tokens").column("grant_id").execute();

  const postgres = await isPostgres(db);
  const triggers = [
    {
      name: "oauth_grants_update",
      on: "update of revoked_at, scopes, link_id on oauth_grants",
      when: postgres
        ? "old.revoked_at is distinct from new.revoked_at or old.scopes is distinct from new.scopes or old.link_id is distinct from new.link_id"
        : "old.revoked_at is not new.revoked_at or old.scopes is not new.scopes or old.link_id is not new.link_id",
      projects: "select old.project_id union select new.project_id",
    },
    {
      name: "oauth_grants_delete",
      on: "delete on oauth_grants",
      when: "",
      projects: "select old.project_id",
    },
    {
      name: "oauth_tokens_delete",
      on: "delete on oauth_tokens",
      when: "",
      projects: "select project_id from oauth_grants where id = old.grant_id",
    },
  ];
  for (const t of triggers) {
    const bump = `update project_versions set project_version = project_version + 1 where project_id in (${t.projects})`;
    const name = `access_version_${t.name}`;
    if (postgres) {
      await sql
        .raw(`create function ${name}() returns trigger language plpgsql as $$
          begin ${bump}; return null; end; $$`)
        .execute(db);
      await sql
        .raw(`create trigger ${name} after ${t.on} for each row
          ${t.when ? `when (${t.when})` : ""} execute function ${name}()`)
        .execute(db);
      // As for the other access tables: TRUNCATE fires no row trigger, so it is refused.
      const table = t.on.split(" on ")[1];
      if (t.name.endsWith("_delete")) {
        await sql
          .raw(`create trigger access_version_no_truncate before truncate on ${table}
            for each statement execute function access_version_no_truncate()`)
          .execute(db);
      }
    } else {
      await sql
        .raw(`create trigger ${name} after ${t.on} for each row ${t.when ? `when ${t.when}` : ""}
          begin ${bump}; end`)
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  for (const [name, table] of [
    ["oauth_grants_update", "oauth_grants"],
    ["oauth_grants_delete", "oauth_grants"],
    ["oauth_tokens_delete", "oauth_tokens"],
  ]) {
    if (postgres) {
      await sql.raw(`drop trigger if exists access_version_${name} on ${table}`).execute(db);
      await sql.raw(`drop function if exists access_version_${name}()`).execute(db);
    } else {
      await sql.raw(`drop trigger if exists access_version_${name}`).execute(db);
    }
  }
  for (const table of ["oauth_tokens", "oauth_codes", "oauth_grants", "oauth_clients"]) {
    await db.schema.dropTable(table).execute();
  }
}
