import { type ExpressionBuilder, type Selectable, sql } from "kysely";
import type { Db } from "../../db/database.js";
import { everyColumn, type IdList, idList, inIdList, projectedQuery } from "../../db/projection.js";
import type { Database, TicketTypesTable } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";
import { nowIso } from "../../shared/time.js";

export type TicketTypeRow = Selectable<TicketTypesTable>;

// The loader's statement: one for any number of ids (see projectedQuery).
const ticketTypesWithIds = projectedQuery(
  everyColumn<TicketTypeRow>()([
    "id",
    "project_id",
    "name",
    "description",
    "price_minor",
    "currency",
    "quantity",
    "sales_start_at",
    "sales_end_at",
    "payment_mode",
    "tax_rate_bp",
    "hidden",
    "created_at",
    "updated_at",
  ]),
  [],
  (db, columns, ids: IdList) =>
    db
      .selectFrom("ticket_types")
      .select(columns)
      .where(inIdList(db, "id", ids)),
  [""] as const,
);

function ticketTypesQuery(db: Db, projectId: string, onSaleAt: string | undefined) {
  let q = db.selectFrom("ticket_types").where("project_id", "=", projectId);
  if (onSaleAt !== undefined) {
    // ISO-8601 UTC text sorts like time on both engines, so the window is compared as text. A
    // hidden type is not on sale to the public: only a code that covers it offers it.
    q = q
      .where("hidden", "=", 0)
      .where((eb) => eb.or([eb("sales_start_at", "is", null), eb("sales_start_at", "<=", onSaleAt)]))
      .where((eb) => eb.or([eb("sales_end_at", "is", null), eb("sales_end_at", ">", onSaleAt)]));
  }
  return q;
}

/**
 * Whether a REGISTERED attendee takes a seat at `at`: always, unless it is a ticket of a pending
 * order whose hold has lapsed (modules/orders). The hold is read here, not left to the expiry
 * worker, so a lapsed hold frees its seat at once whenever the worker runs.
 */
function takesSeat(eb: ExpressionBuilder<Database, "attendees">, at: string) {
  return eb.or([eb("held_until", "is", null), eb("held_until", ">", at)]);
}

/**
 * Waiting-list offers that hold a seat at `at` (modules/waiting-list): a held offer counts as sold
 * until it is taken (then its registration counts) or lapses, read here like an order's hold, so
 * a lapsed offer frees its seat at once whenever the worker runs.
 */
function liveOffers(db: Db, at: string) {
  return db
    .selectFrom("waiting_list_entries")
    .where("state", "=", "OFFERED")
    .where("offer_expires_at", ">", at);
}

/** SQL for ticket types and their sales figures; always scoped by project or by authorized ids. */
export const ticketsRepository = {
  /** Ticket types by creation; `onSaleAt` keeps only those whose sales window is open at that time. */
  list(
    db: Db,
    projectId: string,
    onSaleAt: string | undefined,
    window: PageWindow,
  ): Promise<TicketTypeRow[]> {
    const q = ticketTypesQuery(db, projectId, onSaleAt).selectAll();
    return applyKeyset(q, window, "created_at", "id").execute();
  },

  async count(db: Db, projectId: string, onSaleAt: string | undefined): Promise<number> {
    const row = await ticketTypesQuery(db, projectId, onSaleAt)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** The hidden ticket types among `ids` on sale at `at`. */
  hiddenOnSale(db: Db, projectId: string, ids: readonly string[], at: string): Promise<TicketTypeRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("ticket_types")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("hidden", "=", 1)
      .where((eb) => eb.or([eb("sales_start_at", "is", null), eb("sales_start_at", "<=", at)]))
      .where((eb) => eb.or([eb("sales_end_at", "is", null), eb("sales_end_at", ">", at)]))
      .where("id", "in", [...ids])
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  },

  findById(db: Db, projectId: string, id: string): Promise<TicketTypeRow | undefined> {
    return db
      .selectFrom("ticket_types")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<TicketTypeRow | undefined> {
    return db.selectFrom("ticket_types").selectAll().where("id", "=", id).executeTakeFirst();
  },

  findByIds(db: Db, ids: readonly string[]): Promise<TicketTypeRow[]> {
    return ticketTypesWithIds(db, undefined, idList(db, ids));
  },

  /**
   * Reads a ticket type and write-locks it until the transaction ends, so counting its sales and
   * inserting a registration cannot interleave with another registration. A no-op UPDATE is the
   * lock both engines understand: a row lock on PostgreSQL, the database write lock on SQLite
   * (`SELECT … FOR UPDATE` does not exist there).
   */
  lockForSale(db: Db, projectId: string, id: string): Promise<TicketTypeRow | undefined> {
    return db
      .updateTable("ticket_types")
      .set((eb) => ({ quantity: eb.ref("quantity") }))
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
  },

  /** Another ticket type of the project with this name, compared as the unique index does (lower()). */
  /** Which of `ids` are ticket types of the project. */
  async idsIn(db: Db, projectId: string, ids: readonly string[]): Promise<Set<string>> {
    const rows = await db
      .selectFrom("ticket_types")
      .select("id")
      .where("project_id", "=", projectId)
      .where("id", "in", [...ids])
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  async nameTaken(db: Db, projectId: string, name: string, exceptId?: string): Promise<boolean> {
    let query = db
      .selectFrom("ticket_types")
      .select("id")
      .where("project_id", "=", projectId)
      .where(sql<string>`lower(name)`, "=", sql<string>`lower(${name})`);
    if (exceptId) query = query.where("id", "!=", exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  },

  async insert(db: Db, row: TicketTypeRow): Promise<void> {
    await db.insertInto("ticket_types").values(row).execute();
  },

  async update(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Omit<TicketTypeRow, "id" | "project_id" | "created_at">>,
  ): Promise<void> {
    await db
      .updateTable("ticket_types")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async delete(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("ticket_types").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  /**
   * Seats taken per ticket type (one statement for any number of ids): registrations (see
   * `takesSeat`) and live waiting-list offers (`liveOffers`).
   */
  soldCounts(db: Db, ids: readonly string[], at = nowIso()) {
    const seats = db
      .selectFrom("attendees")
      .select("ticket_type_id")
      .where("ticket_type_id", "in", [...ids])
      .where("status", "=", "REGISTERED")
      .where((eb) => takesSeat(eb, at))
      .unionAll(
        liveOffers(db, at)
          .select("ticket_type_id")
          .where("ticket_type_id", "in", [...ids]),
      );
    return db
      .selectFrom(seats.as("s"))
      .select(["s.ticket_type_id", (eb) => eb.fn.countAll().as("n")])
      .groupBy("s.ticket_type_id")
      .execute();
  },

  /** Seats taken of one ticket type of the project: registrations and live offers, as `soldCounts`. */
  async soldCount(db: Db, projectId: string, id: string, at = nowIso()): Promise<number> {
    const registered = await db
      .selectFrom("attendees")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", id)
      .where("status", "=", "REGISTERED")
      .where((eb) => takesSeat(eb, at))
      .executeTakeFirstOrThrow();
    const offered = await liveOffers(db, at)
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", id)
      .executeTakeFirstOrThrow();
    return Number(registered.n) + Number(offered.n);
  },

  /** People waiting in line (not yet offered a seat) for one ticket type of the project. */
  async waitingCount(db: Db, projectId: string, id: string): Promise<number> {
    const row = await db
      .selectFrom("waiting_list_entries")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", id)
      .where("state", "=", "WAITING")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** People waiting in line (not yet offered a seat) per ticket type; every asked id is a key. */
  async waitingCounts(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>(ids.map((id) => [id, 0]));
    if (ids.length === 0) return counts;
    const rows = await db
      .selectFrom("waiting_list_entries")
      .select(["ticket_type_id", (eb) => eb.fn.countAll().as("n")])
      .where("ticket_type_id", "in", [...ids])
      .where("state", "=", "WAITING")
      .groupBy("ticket_type_id")
      .execute();
    for (const row of rows) counts.set(row.ticket_type_id, Number(row.n));
    return counts;
  },

  /** Attendees of any status that reference the ticket type (they keep it from being deleted). */
  async registrationCount(db: Db, projectId: string, id: string): Promise<number> {
    const row = await db
      .selectFrom("attendees")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
