import type { Selectable } from "kysely";
import { sql } from "kysely";
import { type Db, reusableQuery } from "../../db/database.js";
import type { AuditEventsTable } from "../../db/schema.js";
import { containing, type ErasedAccount, type ErasedPerson } from "../../shared/erasure.js";
import type { PageWindow } from "../../shared/pagination.js";

export type AuditRow = Selectable<AuditEventsTable>;

// Every audited write inserts one entry: the statement is compiled once (see reusableQuery).
const entryColumns = [
  "id",
  "project_id",
  "occurred_at",
  "actor_kind",
  "actor_id",
  "actor_label",
  "link_id",
  "via",
  "ip",
  "action",
  "object_type",
  "object_id",
  "changes",
] as const satisfies readonly (keyof AuditRow)[];
const insertEntry = reusableQuery(
  (db, ...values: unknown[]) =>
    db
      .insertInto("audit_events")
      .values(Object.fromEntries(entryColumns.map((column, i) => [column, values[i]])) as AuditRow),
  entryColumns.map((): unknown => ""),
);

/** What the audit page and `Project.auditLog` filter by; every part is optional. */
export interface AuditFilter {
  /** `user:<id>`, `app:<id>`, `public` or `system`. */
  actor?: string | undefined;
  /** An exact action (`session.updated`) or a prefix ending in a dot (`session.`). */
  action?: string | undefined;
  /** Inclusive lower bound, ISO-8601. */
  from?: string | undefined;
  /** Exclusive upper bound, ISO-8601. */
  to?: string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: the filter applies to any select over audit_events
function filtered<Q extends { where: (...args: any[]) => Q }>(query: Q, filter: AuditFilter): Q {
  let q = query;
  if (filter.actor === "system" || filter.actor === "public") q = q.where("actor_kind", "=", filter.actor);
  else if (filter.actor) {
    const [kind, id] = filter.actor.split(":", 2);
    q = q.where("actor_kind", "=", kind).where("actor_id", "=", id ?? "");
  }
  if (filter.action?.endsWith(".")) {
    // A prefix compare rather than LIKE, whose wildcards (_ in `ticket_type.`) escape differently per engine.
    const prefix = filter.action;
    q = q.where(sql<boolean>`substr(action, 1, ${sql.lit(prefix.length)}) = ${prefix}`);
  } else if (filter.action) q = q.where("action", "=", filter.action);
  if (filter.from) q = q.where("occurred_at", ">=", filter.from);
  if (filter.to) q = q.where("occurred_at", "<", filter.to);
  return q;
}

/** SQL for the audit log. Every read takes the project id: a log is never read across projects. */
export const auditRepository = {
  /** The newest entries about some objects of a project (an order, its tickets and invoices). */
  ofObjects(db: Db, projectId: string, objectIds: readonly string[], limit: number): Promise<AuditRow[]> {
    if (objectIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("audit_events")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("object_id", "in", [...objectIds])
      .orderBy("occurred_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  },

  async insert(db: Db, row: AuditRow): Promise<void> {
    await insertEntry(db, ...entryColumns.map((column) => row[column]));
  },

  /** One project's entries, newest first, keyset-paged on (occurred_at, id). */
  list(db: Db, projectId: string, filter: AuditFilter, window: PageWindow): Promise<AuditRow[]> {
    let q = filtered(db.selectFrom("audit_events").selectAll().where("project_id", "=", projectId), filter);
    // "after" walks towards older entries (the page order is newest first), "before" towards newer.
    if (window.after) q = q.where(sql<boolean>`(occurred_at, id) < (${window.after[0]}, ${window.after[1]})`);
    if (window.before)
      q = q.where(sql<boolean>`(occurred_at, id) > (${window.before[0]}, ${window.before[1]})`);
    const direction = window.backward ? "asc" : "desc";
    return q
      .orderBy("occurred_at", direction)
      .orderBy("id", direction)
      .limit(window.limit + 1)
      .execute();
  },

  async count(db: Db, projectId: string, filter: AuditFilter): Promise<number> {
    const row = await filtered(
      db
        .selectFrom("audit_events")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("project_id", "=", projectId),
      filter,
    ).executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * The people and apps among the project's newest `recent` entries, for the actor filter: bounded
   * work however long the log (a grouping of a year's entries would hold SQLite for too long).
   */
  actors(db: Db, projectId: string, recent: number) {
    const latest = db
      .selectFrom("audit_events")
      .select(["actor_kind", "actor_id", "actor_label"])
      .where("project_id", "=", projectId)
      .orderBy("occurred_at", "desc")
      .limit(recent)
      .as("latest");
    return db
      .selectFrom(latest)
      .select(["actor_kind", "actor_id", (eb) => eb.fn.max("actor_label").as("actor_label")])
      .groupBy(["actor_kind", "actor_id"])
      .orderBy("actor_label")
      .limit(200)
      .execute();
  },

  /** Removes the project's whole log (its deletion leaves only a tombstone without a project id). */
  async deleteForProject(db: Db, projectId: string): Promise<void> {
    await db.deleteFrom("audit_events").where("project_id", "=", projectId).execute();
  },

  /**
   * The project's entries whose recorded values may name the person: those about their registration,
   * and any whose values hold their address or name (a bulk action, an order).
   */
  async mentioning(trx: Db, person: ErasedPerson): Promise<Pick<AuditRow, "id" | "object_id" | "changes">[]> {
    return trx
      .selectFrom("audit_events")
      .select(["id", "object_id", "changes"])
      .where("project_id", "=", person.projectId)
      .where("changes", "is not", null)
      .where((eb) =>
        eb.or([
          eb("object_id", "=", person.attendeeId),
          sql<boolean>`lower(changes) like ${containing(person.email)} escape '\\'`,
          sql<boolean>`lower(changes) like ${containing(person.name)} escape '\\'`,
        ]),
      )
      .execute();
  },

  /**
   * Entries, in any project, whose recorded values may name an erased account: any holding their
   * address, and those holding their name in the projects they belonged to or written by them.
   */
  async mentioningAccount(
    trx: Db,
    account: ErasedAccount,
    projectIds: readonly string[],
  ): Promise<Pick<AuditRow, "id" | "changes">[]> {
    return trx
      .selectFrom("audit_events")
      .select(["id", "changes"])
      .where("changes", "is not", null)
      .where((eb) =>
        eb.or([
          sql<boolean>`lower(changes) like ${containing(account.email)} escape '\\'`,
          eb.and([
            eb.or([
              eb("actor_id", "=", account.userId),
              ...(projectIds.length > 0 ? [eb("project_id", "in", projectIds)] : []),
            ]),
            sql<boolean>`lower(changes) like ${containing(account.name)} escape '\\'`,
          ]),
        ]),
      )
      .execute();
  },

  /** Makes an erased user's entries name no one: the label becomes `label`, the address goes. */
  async forgetUser(trx: Db, userId: string, label: string): Promise<void> {
    await trx
      .updateTable("audit_events")
      .set({ actor_label: label, ip: null })
      .where("actor_kind", "=", "user")
      .where("actor_id", "=", userId)
      .execute();
  },

  /** Replaces an entry's recorded values (erasure); who did what, and when, stays. */
  async replaceChanges(trx: Db, id: string, changes: string | null): Promise<void> {
    await trx.updateTable("audit_events").set({ changes }).where("id", "=", id).execute();
  },

  /**
   * Deletes up to `batch` entries older than `before`; returns how many. Small batches keep each
   * statement (and SQLite's write lock) short while writers keep going.
   */
  async pruneBatch(db: Db, before: string, batch: number): Promise<number> {
    const result = await db
      .deleteFrom("audit_events")
      .where(
        "id",
        "in",
        db.selectFrom("audit_events").select("id").where("occurred_at", "<", before).limit(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
