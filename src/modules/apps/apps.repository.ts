import { type Selectable, sql } from "kysely";
import { type Db, reusableQuery } from "../../db/database.js";
import type { AppLinksTable, AppsTable } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";
import type { ProjectRow } from "../projects/projects.repository.js";

export type AppRow = Selectable<AppsTable>;
export type LinkRow = Selectable<AppLinksTable>;

/** A link with the names the dashboard shows beside it. */
export type LinkDetailsRow = LinkRow & {
  project_name: string;
  authorizer_name: string | null;
  authorizer_email: string | null;
};

/** An active link of a project with the app it belongs to. */
export type IntegrationRow = LinkRow & {
  app_name: string;
  app_description: string | null;
  app_permissions: string;
  app_last_used_at: string | null;
};

/** A project an app reaches, with the key it is ordered by (project creation or link time). */
export type ReachableRow = ProjectRow & { sort_key: string };

/** One count of requests to add to app_usage. */
export interface UsageIncrement {
  appId: string;
  day: string;
  requests: number;
}

// Every authenticated API request starts with this read: compiled once, and named columns (not
// `select *`) so PostgreSQL keeps it prepared (see reusableQuery).
const tokenOwner = reusableQuery(
  (db, tokenHash: string) =>
    db
      .selectFrom("apps")
      .select(["id", "project_id", "name", "permissions", "api_version"])
      .where("token_hash", "=", tokenHash),
  [""] as const,
);

/** SQL for apps, their links to projects and their usage counts; nothing else touches these tables. */
// Links with their project's name and their authorizer's name and email (LinkDetailsRow).
function linkDetails(db: Db) {
  return db
    .selectFrom("app_links")
    .innerJoin("projects", "projects.id", "app_links.project_id")
    .leftJoin("users", "users.id", "app_links.authorized_by")
    .selectAll("app_links")
    .select([
      "projects.name as project_name",
      "users.name as authorizer_name",
      "users.email as authorizer_email",
    ]);
}

export const appsRepository = {
  findById(db: Db, id: string): Promise<AppRow | undefined> {
    return db.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** The one indexed lookup behind every authenticated API request. */
  /** The app holding the token with this hash: what authenticating a request needs of it. */
  async findTokenOwner(
    db: Db,
    tokenHash: string,
  ): Promise<Pick<AppRow, "id" | "project_id" | "name" | "permissions" | "api_version"> | undefined> {
    return (await tokenOwner(db, tokenHash))[0];
  },

  /**
   * Who created these apps: each creator's name, and whether they are still a member of the app's
   * home project (one query for any number of apps).
   */
  async creators(
    db: Db,
    apps: readonly Pick<AppRow, "created_by" | "project_id">[],
  ): Promise<Map<string, { name: string; projectIds: Set<string> }>> {
    const ids = [...new Set(apps.map((a) => a.created_by).filter((id): id is string => id !== null))];
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom("users")
      .leftJoin("project_members", "project_members.user_id", "users.id")
      .select(["users.id", "users.name", "project_members.project_id"])
      .where("users.id", "in", ids)
      .execute();
    const byId = new Map<string, { name: string; projectIds: Set<string> }>();
    for (const row of rows) {
      const entry = byId.get(row.id) ?? { name: row.name, projectIds: new Set<string>() };
      if (row.project_id) entry.projectIds.add(row.project_id);
      byId.set(row.id, entry);
    }
    return byId;
  },

  listForProject(db: Db, projectId: string): Promise<AppRow[]> {
    return db
      .selectFrom("apps")
      .selectAll()
      .where("project_id", "=", projectId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  },

  async insert(db: Db, row: AppRow): Promise<void> {
    await db.insertInto("apps").values(row).execute();
  },

  async update(db: Db, id: string, changes: Partial<Omit<AppRow, "id" | "project_id">>): Promise<void> {
    await db.updateTable("apps").set(changes).where("id", "=", id).execute();
  },

  /** Deletes the app; its links and usage rows go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom("apps").where("id", "=", id).execute();
  },

  /** True when one of the project's owners has verified their email. */
  /** Whether the project is a developer's test project (projects.is_test). */
  async isTestProject(db: Db, projectId: string): Promise<boolean> {
    const row = await db
      .selectFrom("projects")
      .select("is_test")
      .where("id", "=", projectId)
      .executeTakeFirst();
    return row !== undefined && row.is_test !== 0;
  },

  async hasVerifiedOwner(db: Db, projectId: string): Promise<boolean> {
    const row = await db
      .selectFrom("project_members")
      .innerJoin("users", "users.id", "project_members.user_id")
      .select("project_members.user_id")
      .where("project_members.project_id", "=", projectId)
      .where("project_members.role", "=", "OWNER")
      .where("users.email_verified_at", "is not", null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /**
   * Who the consent page names as the app's developer: its creator while on the home project's team,
   * otherwise the project's longest-standing owner.
   */
  developer(
    db: Db,
    projectId: string,
    createdBy: string | null,
  ): Promise<{ name: string; email: string; email_verified_at: string | null } | undefined> {
    const creator = createdBy ?? "";
    return db
      .selectFrom("project_members")
      .innerJoin("users", "users.id", "project_members.user_id")
      .select(["users.name", "users.email", "users.email_verified_at"])
      .where("project_members.project_id", "=", projectId)
      .where((eb) => eb.or([eb("users.id", "=", creator), eb("project_members.role", "=", "OWNER")]))
      .orderBy(sql`case when users.id = ${creator} then 0 else 1 end`)
      .orderBy("project_members.created_at")
      .limit(1)
      .executeTakeFirst();
  },

  /**
   * The owners and admins of every project actively linked to the app, with the project and what
   * its link consented to: who is asked to approve a widening.
   */
  linkManagers(
    db: Db,
    appId: string,
  ): Promise<
    { project_id: string; project_name: string; permissions: string; name: string; email: string }[]
  > {
    return db
      .selectFrom("app_links")
      .innerJoin("projects", "projects.id", "app_links.project_id")
      .innerJoin("project_members", "project_members.project_id", "app_links.project_id")
      .innerJoin("users", "users.id", "project_members.user_id")
      .select([
        "app_links.project_id",
        "projects.name as project_name",
        "app_links.permissions",
        "users.name",
        "users.email",
      ])
      .where("app_links.app_id", "=", appId)
      .where("app_links.revoked_at", "is", null)
      .where("project_members.role", "in", ["OWNER", "ADMIN"])
      .orderBy("users.email")
      .orderBy("app_links.project_id")
      .execute();
  },

  async isMember(db: Db, projectId: string, userId: string): Promise<boolean> {
    const row = await db
      .selectFrom("project_members")
      .select("user_id")
      .where("project_id", "=", projectId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return row !== undefined;
  },

  findActiveLink(db: Db, appId: string, projectId: string): Promise<LinkRow | undefined> {
    return db
      .selectFrom("app_links")
      .selectAll()
      .where("app_id", "=", appId)
      .where("project_id", "=", projectId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
  },

  /**
   * Creates the active link or, when one exists, replaces its grant (re-approval). The partial
   * unique index on active links makes this one atomic statement on both engines, so two
   * organizers authorizing at once cannot create two active links.
   */
  async upsertActiveLink(db: Db, row: LinkRow): Promise<void> {
    await db
      .insertInto("app_links")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["app_id", "project_id"]).where("revoked_at", "is", null).doUpdateSet({
          permissions: row.permissions,
          authorized_at: row.authorized_at,
          authorized_by: row.authorized_by,
        }),
      )
      .execute();
  },

  /** Marks the active link revoked; returns whether there was one. */
  async revokeActiveLink(
    db: Db,
    appId: string,
    projectId: string,
    revokedAt: string,
    revokedBy: string | null,
  ): Promise<boolean> {
    const result = await db
      .updateTable("app_links")
      .set({ revoked_at: revokedAt, revoked_by: revokedBy })
      .where("app_id", "=", appId)
      .where("project_id", "=", projectId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Projects the app is actively linked to (to announce changes that affect all of them). */
  async activeLinkedProjectIds(db: Db, appId: string): Promise<string[]> {
    const rows = await this.activeLinks(db, appId);
    return rows.map((r) => r.project_id);
  },

  /** The ids and projects of an app's active links. */
  activeLinks(db: Db, appId: string): Promise<{ id: string; project_id: string }[]> {
    return db
      .selectFrom("app_links")
      .select(["id", "project_id"])
      .where("app_id", "=", appId)
      .where("revoked_at", "is", null)
      .execute();
  },

  /** Every link of an app, active ones first (newest first), then revoked ones by revocation time. */
  listLinksForApp(db: Db, appId: string): Promise<LinkDetailsRow[]> {
    return linkDetails(db)
      .where("app_links.app_id", "=", appId)
      .orderBy(sql`case when app_links.revoked_at is null then 0 else 1 end`)
      .orderBy("app_links.revoked_at", "desc")
      .orderBy("app_links.authorized_at", "desc")
      .orderBy("app_links.id")
      .execute();
  },

  /** One link with its project and authorizer names. */
  findLinkDetails(db: Db, linkId: string): Promise<LinkDetailsRow | undefined> {
    return linkDetails(db).where("app_links.id", "=", linkId).executeTakeFirst();
  },

  /** Active links of a project with their apps, most recently authorized first. */
  listIntegrations(db: Db, projectId: string): Promise<IntegrationRow[]> {
    return db
      .selectFrom("app_links")
      .innerJoin("apps", "apps.id", "app_links.app_id")
      .selectAll("app_links")
      .select([
        "apps.name as app_name",
        "apps.description as app_description",
        "apps.permissions as app_permissions",
        "apps.last_used_at as app_last_used_at",
      ])
      .where("app_links.project_id", "=", projectId)
      .where("app_links.revoked_at", "is", null)
      .orderBy("app_links.authorized_at", "desc")
      .orderBy("app_links.id")
      .execute();
  },

  /**
   * The home project and the actively linked ones in one keyset-paged list, ordered by
   * (project creation time for the home project, authorization time for a link; project id).
   */
  async reachableProjects(
    db: Db,
    appId: string,
    homeProjectId: string,
    window: PageWindow,
    onlyProjectId?: string,
  ): Promise<ReachableRow[]> {
    const reachable = db
      .selectFrom("projects")
      .selectAll("projects")
      .select("projects.created_at as sort_key")
      .where("projects.id", "=", homeProjectId)
      .unionAll(
        db
          .selectFrom("app_links")
          .innerJoin("projects", "projects.id", "app_links.project_id")
          .selectAll("projects")
          .select("app_links.authorized_at as sort_key")
          .where("app_links.app_id", "=", appId)
          .where("app_links.revoked_at", "is", null)
          .where("app_links.project_id", "<>", homeProjectId),
      )
      .as("reachable");
    const rows = db.selectFrom(reachable).selectAll();
    return applyKeyset(
      onlyProjectId === undefined ? rows : rows.where("reachable.id", "=", onlyProjectId),
      window,
      "reachable.sort_key",
      "reachable.id",
    ).execute() as Promise<ReachableRow[]>;
  },

  /** How many projects the app reaches: its home plus active links. */
  async countReachableProjects(db: Db, appId: string, homeProjectId: string): Promise<number> {
    const row = await db
      .selectFrom("app_links")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("app_id", "=", appId)
      .where("revoked_at", "is", null)
      .where("project_id", "<>", homeProjectId)
      .executeTakeFirstOrThrow();
    return Number(row.n) + 1;
  },

  /** Requests per app since `fromDay` (inclusive, `YYYY-MM-DD`), for many apps in one query. */
  async requestsSince(db: Db, appIds: readonly string[], fromDay: string): Promise<Map<string, number>> {
    if (appIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("app_usage")
      .select((eb) => ["app_id", eb.fn.sum<string | number>("requests").as("total")])
      .where("app_id", "in", appIds)
      .where("day", ">=", fromDay)
      .groupBy("app_id")
      .execute();
    return new Map(rows.map((r) => [r.app_id, Number(r.total)]));
  },

  /** Of these app ids, the ones that still exist. */
  async existingAppIds(db: Db, appIds: readonly string[]): Promise<Set<string>> {
    if (appIds.length === 0) return new Set();
    const rows = await db.selectFrom("apps").select("id").where("id", "in", appIds).execute();
    return new Set(rows.map((r) => r.id));
  },

  /** Adds request counts, creating the (app, day) rows that do not exist yet. */
  async addUsage(db: Db, increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await db
      .insertInto("app_usage")
      .values(increments.map((i) => ({ app_id: i.appId, day: i.day, requests: i.requests })))
      .onConflict((oc) =>
        oc.columns(["app_id", "day"]).doUpdateSet({
          requests: sql<number>`app_usage.requests + excluded.requests`,
        }),
      )
      .execute();
  },

  /** Moves last_used_at forward (never back: another process may have flushed a later time). */
  async touchLastUsed(db: Db, appId: string, usedAt: string): Promise<void> {
    await db
      .updateTable("apps")
      .set({ last_used_at: usedAt })
      .where("id", "=", appId)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", usedAt)]))
      .execute();
  },
};
