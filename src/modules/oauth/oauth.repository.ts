import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type {
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  OAuthTokensTable,
} from "../../db/schema.js";

export type ClientRow = Selectable<OAuthClientsTable>;
export type CodeRow = Selectable<OAuthCodesTable>;
export type GrantRow = Selectable<OAuthGrantsTable>;
export type TokenRow = Selectable<OAuthTokensTable>;

/** A grant with what the dashboard lists beside it. */
export type GrantListRow = GrantRow & {
  app_name: string;
  project_name: string;
  link_revoked_at: string | null;
  authorizer_name: string | null;
};

/** What authenticating an access token needs: the token, its live grant, its app. */
export interface AccessTokenOwner {
  expires_at: string;
  scopes: string;
  grant_id: string;
  project_id: string;
  app_id: string;
  home_project_id: string;
  app_name: string;
  app_permissions: string;
  app_api_version: string;
}

/** SQL for OAuth clients, codes, grants and tokens; nothing else touches these tables. */
export const oauthRepository = {
  findClient(db: Db, appId: string): Promise<ClientRow | undefined> {
    return db.selectFrom("oauth_clients").selectAll().where("app_id", "=", appId).executeTakeFirst();
  },

  /** Creates or replaces an app's client row. */
  async upsertClient(db: Db, row: ClientRow): Promise<void> {
    await db
      .insertInto("oauth_clients")
      .values(row)
      .onConflict((oc) =>
        oc.column("app_id").doUpdateSet({
          secret_hash: row.secret_hash,
          secret_last4: row.secret_last4,
          secret_created_at: row.secret_created_at,
          redirect_uris: row.redirect_uris,
        }),
      )
      .execute();
  },

  async insertCode(db: Db, row: CodeRow): Promise<void> {
    await db.insertInto("oauth_codes").values(row).execute();
  },

  findCode(db: Db, codeHash: string): Promise<CodeRow | undefined> {
    return db.selectFrom("oauth_codes").selectAll().where("code_hash", "=", codeHash).executeTakeFirst();
  },

  /** Marks the code used; false when it already was (a second exchange, or one racing this one). */
  async consumeCode(db: Db, codeHash: string, usedAt: string, grantId: string): Promise<boolean> {
    const result = await db
      .updateTable("oauth_codes")
      .set({ used_at: usedAt, grant_id: grantId })
      .where("code_hash", "=", codeHash)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Deletes codes expired before `before`; a used code is kept until then to recognise its reuse. */
  async deleteExpiredCodes(db: Db, before: string): Promise<void> {
    await db.deleteFrom("oauth_codes").where("expires_at", "<", before).execute();
  },

  /**
   * Forgets that an erased user authorized grants and codes (these columns have no foreign key to
   * set them null): the grants stay, they are the project's.
   */
  async forgetAuthorizer(db: Db, userId: string): Promise<void> {
    await db
      .updateTable("oauth_grants")
      .set({ authorized_by: null })
      .where("authorized_by", "=", userId)
      .execute();
    await db
      .updateTable("oauth_codes")
      .set({ authorized_by: null })
      .where("authorized_by", "=", userId)
      .execute();
  },

  async insertGrant(db: Db, row: GrantRow): Promise<void> {
    await db.insertInto("oauth_grants").values(row).execute();
  },

  findGrant(db: Db, grantId: string): Promise<GrantRow | undefined> {
    return db.selectFrom("oauth_grants").selectAll().where("id", "=", grantId).executeTakeFirst();
  },

  /** Whether the link a grant rode on is still active. */
  async linkActive(db: Db, linkId: string): Promise<boolean> {
    const row = await db
      .selectFrom("app_links")
      .select("id")
      .where("id", "=", linkId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Revokes a live grant; false when it was already revoked. */
  async revokeGrant(db: Db, grantId: string, at: string, reason: string): Promise<boolean> {
    const result = await db
      .updateTable("oauth_grants")
      .set({ revoked_at: at, revoked_reason: reason })
      .where("id", "=", grantId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async insertTokens(db: Db, rows: readonly TokenRow[]): Promise<void> {
    await db.insertInto("oauth_tokens").values(rows).execute();
  },

  findToken(db: Db, tokenHash: string): Promise<TokenRow | undefined> {
    return db.selectFrom("oauth_tokens").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  },

  /** Marks a refresh token used; false when it already was (a reuse, or a race with another use). */
  async useRefreshToken(db: Db, tokenHash: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("oauth_tokens")
      .set({ used_at: at })
      .where("token_hash", "=", tokenHash)
      .where("kind", "=", "refresh")
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /**
   * Drops a grant's expired tokens. A rotated refresh token is kept until its own expiry, so that
   * its reuse is recognised (and kills the grant) for as long as it could have been used at all.
   */
  async pruneTokens(db: Db, grantId: string, now: string): Promise<void> {
    await db
      .deleteFrom("oauth_tokens")
      .where("grant_id", "=", grantId)
      .where("expires_at", "<", now)
      .execute();
  },

  /**
   * The live owner of an access token: the token, its unrevoked grant whose link is still active,
   * and the app. Expiry is the caller's to check (it is remembered with the answer).
   */
  accessTokenOwner(db: Db, tokenHash: string): Promise<AccessTokenOwner | undefined> {
    return db
      .selectFrom("oauth_tokens")
      .innerJoin("oauth_grants", "oauth_grants.id", "oauth_tokens.grant_id")
      .innerJoin("app_links", "app_links.id", "oauth_grants.link_id")
      .innerJoin("apps", "apps.id", "oauth_grants.app_id")
      .select([
        "oauth_tokens.expires_at",
        "oauth_tokens.scopes",
        "oauth_grants.id as grant_id",
        "oauth_grants.project_id",
        "apps.id as app_id",
        "apps.project_id as home_project_id",
        "apps.name as app_name",
        "apps.permissions as app_permissions",
        "apps.api_version as app_api_version",
      ])
      .where("oauth_tokens.token_hash", "=", tokenHash)
      .where("oauth_tokens.kind", "=", "access")
      .where("oauth_grants.revoked_at", "is", null)
      .where("app_links.revoked_at", "is", null)
      .executeTakeFirst();
  },

  /** Moves a grant's last use forward (never back: another process may have written a later time). */
  async touchGrant(db: Db, grantId: string, usedAt: string): Promise<void> {
    await db
      .updateTable("oauth_grants")
      .set({ last_used_at: usedAt })
      .where("id", "=", grantId)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", usedAt)]))
      .execute();
  },

  /** The newest grants of a project (Integrations) or of an app (Linked projects), live ones first. */
  listGrants(
    db: Db,
    where: { projectId: string } | { appId: string },
    limit: number,
  ): Promise<GrantListRow[]> {
    let query = db
      .selectFrom("oauth_grants")
      .innerJoin("apps", "apps.id", "oauth_grants.app_id")
      .innerJoin("projects", "projects.id", "oauth_grants.project_id")
      .innerJoin("app_links", "app_links.id", "oauth_grants.link_id")
      .leftJoin("users", "users.id", "oauth_grants.authorized_by")
      .selectAll("oauth_grants")
      .select([
        "apps.name as app_name",
        "projects.name as project_name",
        "app_links.revoked_at as link_revoked_at",
        "users.name as authorizer_name",
      ]);
    query =
      "projectId" in where
        ? query.where("oauth_grants.project_id", "=", where.projectId)
        : query.where("oauth_grants.app_id", "=", where.appId);
    return query.orderBy("oauth_grants.created_at", "desc").orderBy("oauth_grants.id").limit(limit).execute();
  },
};
