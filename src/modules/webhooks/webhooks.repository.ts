import { SqliteAdapter, sql } from "kysely";
import { type Db, reusableQuery, type Tx } from "../../db/database.js";
import type {
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from "../../db/schema.js";
import { containing, type ErasedPerson } from "../../shared/erasure.js";

export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = Omit<WebhookDeliveriesTable, "seq"> & { seq: number | string };
export type AttemptRow = WebhookAttemptsTable;

/** An app that may hear of a project's events, with what it was granted there. */
export interface SubscriberRow {
  app_id: string;
  events: string;
  /** The app's own (requested) permissions. */
  app_permissions: string;
  /** The link's consented permissions; null in the app's home project. */
  link_permissions: string | null;
}

// Every write with an event reads its project's subscribers: compiled once (see reusableQuery).
const subscribers = reusableQuery(
  (db, homeProjectId: string, linkedProjectId: string) => {
    const home = db
      .selectFrom("webhook_endpoints as w")
      .innerJoin("apps as a", "a.id", "w.app_id")
      .select([
        "w.app_id",
        "w.events",
        "a.permissions as app_permissions",
        sql<string | null>`null`.as("link_permissions"),
      ])
      .where("a.project_id", "=", homeProjectId);
    const linked = db
      .selectFrom("webhook_endpoints as w")
      .innerJoin("apps as a", "a.id", "w.app_id")
      .innerJoin("app_links as l", "l.app_id", "w.app_id")
      .select([
        "w.app_id",
        "w.events",
        "a.permissions as app_permissions",
        "l.permissions as link_permissions",
      ])
      .where("l.project_id", "=", linkedProjectId)
      .where("l.revoked_at", "is", null);
    return home.unionAll(linked);
  },
  ["", ""] as const,
);

/** SQL of endpoints, deliveries and attempts. Only the webhooks module uses it. */
// The project's version row, locked until the commit on PostgreSQL (see insertDeliveries); a plain
// read on SQLite, whose write transactions already hold the database's one write lock. FOR NO KEY
// UPDATE, the lock the version bump takes.
const lockProjectRow = reusableQuery(
  (db, projectId: string) => {
    const q = db.selectFrom("project_versions").select("project_id").where("project_id", "=", projectId);
    return db.getExecutor().adapter instanceof SqliteAdapter ? q : q.forNoKeyUpdate();
  },
  [""] as const,
);

export const webhooksRepository = {
  findEndpoint(db: Db, appId: string): Promise<EndpointRow | undefined> {
    return db.selectFrom("webhook_endpoints").selectAll().where("app_id", "=", appId).executeTakeFirst();
  },

  async upsertEndpoint(db: Db, row: EndpointRow): Promise<void> {
    await db
      .insertInto("webhook_endpoints")
      .values(row)
      .onConflict((oc) =>
        oc.column("app_id").doUpdateSet({
          url: row.url,
          events: row.events,
          fragments: row.fragments,
          secret: row.secret,
          previous_secret: row.previous_secret,
          previous_secret_expires_at: row.previous_secret_expires_at,
          failing_since: row.failing_since,
          disabled_at: row.disabled_at,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },

  async deleteEndpoint(db: Db, appId: string): Promise<void> {
    await db.deleteFrom("webhook_endpoints").where("app_id", "=", appId).execute();
  },

  /**
   * Endpoints (disabled ones too: their deliveries are kept as FAILED for a later redelivery) of apps reaching the project: apps created in it and apps with an active
   * link to it. One indexed query per write, inside the write's transaction.
   */
  async subscribersOf(trx: Tx, projectId: string): Promise<SubscriberRow[]> {
    return subscribers(trx, projectId, projectId);
  },

  /** The app a link belongs to, when it has an endpoint. */
  linkSubscriber(trx: Tx, linkId: string): Promise<{ app_id: string; events: string } | undefined> {
    return trx
      .selectFrom("app_links as l")
      .innerJoin("webhook_endpoints as w", "w.app_id", "l.app_id")
      .select(["w.app_id", "w.events"])
      .where("l.id", "=", linkId)
      .executeTakeFirst();
  },

  /** The app a delivery is for: who it acts as when its object is rendered. */
  findApp(db: Db, appId: string) {
    return db
      .selectFrom("apps")
      .select(["id", "project_id", "name", "permissions", "api_version"])
      .where("id", "=", appId)
      .executeTakeFirst();
  },

  /** A link's state, for the `app.link.*` payloads. */
  findLink(db: Db, linkId: string) {
    return db
      .selectFrom("app_links")
      .select(["id", "app_id", "project_id", "permissions", "authorized_at", "revoked_at"])
      .where("id", "=", linkId)
      .executeTakeFirst();
  },

  /**
   * Inserts deliveries of one project's event in the order of the project's commits. `seq` is what
   * the dispatcher sends a queue in, and it is taken when the row is inserted; on PostgreSQL the
   * project's version row is locked first, so a concurrent write of the project inserts after this
   * one commits (the version bump, the write's last statement, locks that row too).
   * Without the lock, a later `seq` could commit first and be sent before an earlier one. SQLite
   * runs one write transaction at a time.
   */
  async insertDeliveries(trx: Tx, projectId: string, rows: Omit<DeliveryRow, "seq">[]): Promise<void> {
    if (rows.length === 0) return;
    await lockProjectRow(trx, projectId);
    await trx.insertInto("webhook_deliveries").values(rows).execute();
  },

  /** The delivery log of an app, newest first, after the cursor `beforeSeq`. */
  listDeliveries(
    db: Db,
    appId: string,
    options: { status?: DeliveryStatus | undefined; beforeSeq?: number | undefined; limit: number },
  ): Promise<DeliveryRow[]> {
    let query = db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("app_id", "=", appId)
      .orderBy("seq", "desc")
      .limit(options.limit);
    if (options.status) query = query.where("status", "=", options.status);
    if (options.beforeSeq !== undefined) query = query.where("seq", "<", options.beforeSeq);
    return query.execute();
  },

  async countDeliveries(db: Db, appId: string, status: DeliveryStatus | undefined): Promise<number> {
    let query = db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("app_id", "=", appId);
    if (status) query = query.where("status", "=", status);
    const row = await query.executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  findDelivery(db: Db, deliveryId: string): Promise<DeliveryRow | undefined> {
    return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", deliveryId).executeTakeFirst();
  },

  attemptsOf(db: Db, deliveryId: string): Promise<AttemptRow[]> {
    return db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("delivery_id", "=", deliveryId)
      .orderBy("attempt")
      .execute();
  },

  /** Queues deliveries again for one more attempt now (attempt numbers go on counting). */
  /** Removes every delivery about the project (its deletion; their bodies hold its data). */
  async deleteForProject(db: Db, projectId: string): Promise<void> {
    await db.deleteFrom("webhook_deliveries").where("project_id", "=", projectId).execute();
  },

  async requeue(db: Db, appId: string, filter: { deliveryId?: string; failedSince?: string }, now: string) {
    let query = db
      .updateTable("webhook_deliveries")
      .set({ status: "PENDING", next_attempt_at: now, lease_token: null, locked_until: null })
      .where("app_id", "=", appId)
      .where("status", "in", filter.deliveryId ? ["FAILED", "DELIVERED", "CANCELLED"] : ["FAILED"]);
    if (filter.deliveryId) query = query.where("id", "=", filter.deliveryId);
    if (filter.failedSince) query = query.where("created_at", ">=", filter.failedSince);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  /** Pending deliveries per status of the whole service (the queue-depth gauge). */
  async pendingCount(db: Db): Promise<number> {
    const row = await db
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("status", "=", "PENDING")
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /** When the next pending delivery falls due, to sleep until then. */
  async nextDue(db: Db): Promise<string | undefined> {
    const row = await db
      .selectFrom("webhook_deliveries")
      // A delivery being sent is due again only when its lease runs out.
      .select(
        sql<
          string | null
        >`min(case when locked_until > next_attempt_at then locked_until else next_attempt_at end)`.as("at"),
      )
      .where("status", "=", "PENDING")
      .executeTakeFirst();
    return (row?.at as string | null) ?? undefined;
  },

  /** Forgets finished deliveries older than `before` (30 days of log), attempts with them. */
  async purgeBefore(db: Db, before: string): Promise<void> {
    await db
      .deleteFrom("webhook_deliveries")
      .where("created_at", "<", before)
      .where("status", "in", ["DELIVERED", "FAILED", "CANCELLED"])
      .execute();
  },

  /** Email addresses of the app's developer: its creator, or else the owners of its home project. */
  async developerEmails(
    db: Db,
    appId: string,
  ): Promise<{ name: string; projectId: string; emails: string[] }> {
    const app = await db
      .selectFrom("apps")
      .select(["name", "project_id", "created_by"])
      .where("id", "=", appId)
      .executeTakeFirst();
    if (!app) return { name: "", projectId: "", emails: [] };
    const owners = await db
      .selectFrom("project_members as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select("u.email")
      .where("m.project_id", "=", app.project_id)
      .where((eb) => eb.or([eb("m.role", "=", "OWNER"), eb("m.user_id", "=", app.created_by ?? "")]))
      .execute();
    return { name: app.name, projectId: app.project_id, emails: [...new Set(owners.map((o) => o.email))] };
  },

  /** The project's deliveries that may name an erased person: about them, or holding their address or name. */
  deliveriesMentioning(
    trx: Db,
    person: ErasedPerson,
  ): Promise<Pick<DeliveryRow, "id" | "object_id" | "payload" | "last_error">[]> {
    return trx
      .selectFrom("webhook_deliveries")
      .select(["id", "object_id", "payload", "last_error"])
      .where("project_id", "=", person.projectId)
      .where((eb) =>
        eb.or([
          eb("object_id", "=", person.attendeeId),
          sql<boolean>`lower(payload) like ${containing(person.email)} escape '\\'`,
          sql<boolean>`lower(payload) like ${containing(person.name)} escape '\\'`,
          sql<boolean>`lower(last_error) like ${containing(person.email)} escape '\\'`,
        ]),
      )
      .execute();
  },

  /** Replaces a delivery's stored payload and error (erasure). */
  async replaceDeliveryText(
    trx: Db,
    id: string,
    text: Pick<DeliveryRow, "payload" | "last_error">,
  ): Promise<void> {
    await trx.updateTable("webhook_deliveries").set(text).where("id", "=", id).execute();
  },

  /**
   * Drops the receivers' response bodies that may echo an erased person: those of deliveries about
   * them, and any of the project's that hold their address or name.
   */
  async forgetResponsesMentioning(trx: Db, person: ErasedPerson): Promise<void> {
    const projectDeliveries = trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("project_id", "=", person.projectId);
    await trx
      .updateTable("webhook_attempts")
      .set({ response_body: null })
      .where("delivery_id", "in", projectDeliveries)
      .where((eb) =>
        eb.or([
          eb("delivery_id", "in", projectDeliveries.where("object_id", "=", person.attendeeId)),
          sql<boolean>`lower(response_body) like ${containing(person.email)} escape '\\'`,
          sql<boolean>`lower(response_body) like ${containing(person.name)} escape '\\'`,
        ]),
      )
      .execute();
  },
};
