import type { Selectable } from "kysely";
import { type Db, reusableQuery } from "../../db/database.js";
import { everyColumn } from "../../db/projection.js";
import type {
  MemberRole,
  ProjectMembersTable,
  ProjectsTable,
  ProjectVersionsTable,
} from "../../db/schema.js";
import { type AreaMask, type AreaVersions, areaBit } from "../../shared/data-areas.js";

export type ProjectRow = Selectable<ProjectsTable>;
export type MemberRow = Selectable<ProjectMembersTable>;

// The per-request reads of the API, compiled once (see reusableQuery). The columns are listed, not
// `*`, so that PostgreSQL keeps the project read of every API miss as a named prepared statement.
const projectColumns = everyColumn<ProjectRow>()([
  "id",
  "name",
  "description",
  "timezone",
  "starts_at",
  "ends_at",
  "venue_name",
  "venue_address",
  "venue_city",
  "venue_country",
  "website",
  "status",
  "is_test",
  "test_seed",
  "created_at",
  "updated_at",
]);
const projectById = reusableQuery(
  (db, id: string) => db.selectFrom("projects").select(projectColumns).where("id", "=", id),
  [""] as const,
);
const versionColumns = [
  "project_version",
  "agenda_version",
  "tickets_version",
  "attendees_version",
  "checkins_version",
] as const;
type VersionRow = Pick<Selectable<ProjectVersionsTable>, (typeof versionColumns)[number]>;
const areaVersionsOf = (row: VersionRow): AreaVersions => ({
  project: Number(row.project_version),
  agenda: Number(row.agenda_version),
  tickets: Number(row.tickets_version),
  attendees: Number(row.attendees_version),
  checkins: Number(row.checkins_version),
});
const versionOfProject = reusableQuery(
  (db, id: string) =>
    db
      .selectFrom("project_versions")
      .select(["project_id", ...versionColumns])
      .where("project_id", "=", id),
  [""] as const,
);
const statusAndVersionOfProject = reusableQuery(
  (db, id: string) =>
    db
      .selectFrom("projects")
      .innerJoin("project_versions", "project_versions.project_id", "projects.id")
      // Qualified: until the next release drops them, projects keeps its old counters too.
      .select(["projects.status", ...versionColumns.map((c) => `project_versions.${c}` as const)])
      .where("projects.id", "=", id),
  [""] as const,
);

// Every write bumps its areas' counters: one statement compiled per set of areas (at most 31).
const bumpByAreas = new Map<AreaMask, ReturnType<typeof bumpStatement>>();
function bumpStatement(areas: AreaMask) {
  return reusableQuery(
    (db, id: string) =>
      db
        .updateTable("project_versions")
        .set((eb) => {
          const bump = (column: (typeof versionColumns)[number]) => eb(column, "+", eb.lit(1));
          return {
            ...(areas & areaBit.project ? { project_version: bump("project_version") } : {}),
            ...(areas & areaBit.agenda ? { agenda_version: bump("agenda_version") } : {}),
            ...(areas & areaBit.tickets ? { tickets_version: bump("tickets_version") } : {}),
            ...(areas & areaBit.attendees ? { attendees_version: bump("attendees_version") } : {}),
            ...(areas & areaBit.checkins ? { checkins_version: bump("checkins_version") } : {}),
          };
        })
        .where("project_id", "=", id),
    [""] as const,
  );
}

/** SQL for projects and their members. */
export const projectsRepository = {
  async findById(db: Db, id: string): Promise<ProjectRow | undefined> {
    return (await projectById(db, id))[0];
  },

  /** The project's status and data version, the first read of every project an API request touches. */
  async findStatusAndVersion(
    db: Db,
    id: string,
  ): Promise<{ status: ProjectRow["status"]; versions: AreaVersions } | undefined> {
    const row = (await statusAndVersionOfProject(db, id))[0];
    return row && { status: row.status, versions: areaVersionsOf(row) };
  },

  findByIds(db: Db, ids: readonly string[]): Promise<ProjectRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom("projects").selectAll().where("id", "in", ids).execute();
  },

  /** A new project, with its version counters at 0. */
  async insert(db: Db, row: ProjectRow): Promise<void> {
    await db.insertInto("projects").values(row).execute();
    await db.insertInto("project_versions").values({ project_id: row.id }).execute();
  },

  async update(
    db: Db,
    id: string,
    changes: Partial<Omit<ProjectRow, "id" | "created_at" | "is_test" | "test_seed">>,
  ): Promise<void> {
    await db.updateTable("projects").set(changes).where("id", "=", id).execute();
  },

  /** Projects the user is a member of, newest first, with the user's role. */
  listForUser(db: Db, userId: string): Promise<(ProjectRow & { role: MemberRole })[]> {
    return db
      .selectFrom("projects")
      .innerJoin("project_members", "project_members.project_id", "projects.id")
      .selectAll("projects")
      .select("project_members.role")
      .where("project_members.user_id", "=", userId)
      .orderBy("projects.created_at", "desc")
      .orderBy("projects.id")
      .execute();
  },

  findMember(db: Db, projectId: string, userId: string): Promise<MemberRow | undefined> {
    return db
      .selectFrom("project_members")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
  },

  listMembers(db: Db, projectId: string) {
    return db
      .selectFrom("project_members")
      .innerJoin("users", "users.id", "project_members.user_id")
      .select([
        "project_members.user_id",
        "project_members.role",
        "project_members.created_at",
        "users.email",
        "users.name",
      ])
      .where("project_members.project_id", "=", projectId)
      .orderBy("project_members.created_at")
      .execute();
  },

  async upsertMember(db: Db, row: MemberRow): Promise<void> {
    await db
      .insertInto("project_members")
      .values(row)
      .onConflict((oc) => oc.columns(["project_id", "user_id"]).doUpdateSet({ role: row.role }))
      .execute();
  },

  async deleteMember(db: Db, projectId: string, userId: string): Promise<void> {
    await db
      .deleteFrom("project_members")
      .where("project_id", "=", projectId)
      .where("user_id", "=", userId)
      .execute();
  },

  /** Marks `areas` of the project's data as changed (see ProjectChanges); a missing project is ignored. */
  async bumpDataVersion(db: Db, id: string, areas: AreaMask): Promise<void> {
    let bump = bumpByAreas.get(areas);
    if (!bump) {
      bump = bumpStatement(areas);
      bumpByAreas.set(areas, bump);
    }
    await bump(db, id);
  },

  /** Current version counters of projects; a missing project is absent from the map. */
  async dataVersions(db: Db, ids: readonly string[]): Promise<Map<string, AreaVersions>> {
    if (ids.length === 0) return new Map();
    // One project is the common case (every cache hit of a project page checks it).
    const rows =
      ids.length === 1
        ? await versionOfProject(db, ids[0] as string)
        : await db
            .selectFrom("project_versions")
            .select(["project_id", ...versionColumns])
            .where("project_id", "in", ids)
            .execute();
    return new Map(rows.map((r) => [r.project_id, areaVersionsOf(r)]));
  },

  /**
   * Serializes membership changes of one project until the transaction ends: a no-op update of the
   * project row takes its row lock on PostgreSQL and the write lock on SQLite, so two concurrent
   * demotions or removals cannot both count the same "other owner" and leave none. The project's
   * row, not its version row: a process of the previous release locks the same one.
   */
  async lockMembership(trx: Db, projectId: string): Promise<boolean> {
    const result = await trx
      .updateTable("projects")
      .set((eb) => ({ status: eb.ref("status") }))
      .where("id", "=", projectId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /**
   * Deletes up to `batch` of the project's attendees (their check-ins follow by cascade); returns how
   * many. Deleting a project goes through its largest table in slices first, so no single statement
   * (synchronous on SQLite) holds the event loop for the whole event's registrations.
   */
  async deleteAttendeesBatch(db: Db, projectId: string, batch: number): Promise<number> {
    const result = await db
      .deleteFrom("attendees")
      .where(
        "id",
        "in",
        db.selectFrom("attendees").select("id").where("project_id", "=", projectId).limit(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Deletes the project row; every table that names it follows by `on delete cascade`. */
  async delete(db: Db, projectId: string): Promise<boolean> {
    const result = await db.deleteFrom("projects").where("id", "=", projectId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  async countOwners(db: Db, projectId: string): Promise<number> {
    const row = await db
      .selectFrom("project_members")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .where("role", "=", "OWNER")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
