import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { OrderLinesTable, OrderSettingsTable, OrderState, OrdersTable } from "../../db/schema.js";
import { type ErasedPerson, erasedEmail, erasedName } from "../../shared/erasure.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";

export type OrderRow = Selectable<OrdersTable>;
export type OrderLineRow = Selectable<OrderLinesTable>;
export type OrderSettingsRow = Selectable<OrderSettingsTable>;

/** Which orders a list shows: of one state, and matching a search of code, names and emails. */
export interface OrderListFilter {
  state?: OrderState | undefined;
  search?: string | undefined;
}

// LIKE's wildcards in what a person typed match themselves: `_` in an email is not "any character".
const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function ordersQuery(db: Db, projectId: string, filter: OrderListFilter) {
  let q = db.selectFrom("orders").where("project_id", "=", projectId);
  if (filter.state) q = q.where("state", "=", filter.state);
  if (filter.search) {
    const pattern = likePattern(filter.search);
    // A code as typed, with its random part in any case: the project part is case-sensitive.
    const typed = /^([A-Za-z0-9]{4})-([A-Za-z0-9]+)$/.exec(filter.search);
    const codes = [
      typed ? `${typed[1]}-${typed[2]?.toUpperCase()}` : filter.search,
      // The code without its project prefix, as a buyer quotes it from a bank statement.
      `${projectId}-${filter.search.toUpperCase()}`,
    ];
    // ESCAPE names the escape character on both engines (PostgreSQL's default, SQLite's none).
    const like = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
    q = q.where((eb) =>
      eb.or([
        eb("orders.code", "in", codes),
        like("orders.buyer_name"),
        like("orders.buyer_email"),
        eb.exists(
          eb
            .selectFrom("attendees")
            .select("attendees.id")
            .whereRef("attendees.order_id", "=", "orders.id")
            .where((inner) => inner.or([like("attendees.name"), like("attendees.email")])),
        ),
      ]),
    );
  }
  return q;
}

/** SQL for orders, their lines and tickets, and the order settings; always scoped by project or by authorized ids. */
export const ordersRepository = {
  /** Orders by creation, of one state or all, matching the search when given. */
  list(db: Db, projectId: string, filter: OrderListFilter, window: PageWindow): Promise<OrderRow[]> {
    return applyKeyset(
      ordersQuery(db, projectId, filter).selectAll("orders"),
      window,
      "created_at",
      "id",
    ).execute();
  },

  async count(db: Db, projectId: string, filter: OrderListFilter): Promise<number> {
    const row = await ordersQuery(db, projectId, filter)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<OrderRow | undefined> {
    return db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** Orders by id, for a loader whose parents the caller could already read (`Attendee.order`). */
  findByIds(db: Db, ids: readonly string[]): Promise<OrderRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("orders")
      .selectAll()
      .where("id", "in", [...ids])
      .execute();
  },

  findByCode(db: Db, projectId: string, code: string): Promise<OrderRow | undefined> {
    return db
      .selectFrom("orders")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("code", "=", code)
      .executeTakeFirst();
  },

  findByIdempotencyKey(db: Db, projectId: string, key: string): Promise<OrderRow | undefined> {
    return db
      .selectFrom("orders")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
  },

  /**
   * Reads an order and write-locks it until the transaction ends, so marking it paid, cancelling it
   * and expiring it run one after the other. A no-op UPDATE is the lock both engines understand (a
   * row lock on PostgreSQL, the database write lock on SQLite), as tickets' `lockForSale`.
   */
  lock(db: Db, projectId: string, id: string): Promise<OrderRow | undefined> {
    return db
      .updateTable("orders")
      .set((eb) => ({ state: eb.ref("state") }))
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
  },

  async insert(db: Db, row: OrderRow, lines: readonly OrderLineRow[]): Promise<void> {
    await db.insertInto("orders").values(row).execute();
    await db
      .insertInto("order_lines")
      .values([...lines])
      .execute();
  },

  async update(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Omit<OrderRow, "id" | "project_id" | "created_at">>,
  ): Promise<void> {
    await db
      .updateTable("orders")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  /** The lines of some orders (one statement), in ticket type order. */
  linesOf(db: Db, orderIds: readonly string[]): Promise<OrderLineRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("order_lines")
      .selectAll()
      .where("order_id", "in", [...orderIds])
      .orderBy("order_id")
      .orderBy("ticket_type_name")
      .execute();
  },

  /** Pending orders whose hold lapsed before `at`: of one project, or of all (the expiry worker). */
  lapsed(db: Db, at: string, limit: number, projectId?: string) {
    let q = db
      .selectFrom("orders")
      .select(["id", "project_id"])
      .where("state", "=", "PENDING")
      .where("hold_expires_at", "<=", at);
    if (projectId) q = q.where("project_id", "=", projectId);
    return q.orderBy("hold_expires_at").limit(limit).execute();
  },

  /** When the next pending hold lapses, for the worker's timer; undefined when none is held. */
  async nextLapse(db: Db): Promise<string | undefined> {
    const row = await db
      .selectFrom("orders")
      .select("hold_expires_at")
      .where("state", "=", "PENDING")
      .where("hold_expires_at", "is not", null)
      .orderBy("hold_expires_at")
      .limit(1)
      .executeTakeFirst();
    return row?.hold_expires_at ?? undefined;
  },

  findSettings(db: Db, projectId: string): Promise<OrderSettingsRow | undefined> {
    return db.selectFrom("order_settings").selectAll().where("project_id", "=", projectId).executeTakeFirst();
  },

  async upsertSettings(db: Db, row: OrderSettingsRow): Promise<void> {
    await db
      .insertInto("order_settings")
      .values(row)
      .onConflict((oc) =>
        oc.column("project_id").doUpdateSet({
          hold_minutes: row.hold_minutes,
          bank_details: row.bank_details,
          tax_rate_bp: row.tax_rate_bp,
          seller_details: row.seller_details,
          invoice_prefix: row.invoice_prefix,
          self_cancel_until: row.self_cancel_until,
          prices_net: row.prices_net,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },

  /** Replaces the buyer's name and address on the project's orders an erased attendee placed. */
  async eraseBuyer(trx: Db, person: ErasedPerson): Promise<void> {
    await trx
      .updateTable("orders")
      .set({ buyer_name: erasedName, buyer_email: erasedEmail(person.attendeeId) })
      .where("project_id", "=", person.projectId)
      .where(sql<boolean>`lower(buyer_email) = ${person.email.toLowerCase()}`)
      .execute();
  },
};
