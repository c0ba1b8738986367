import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { InvoicesTable } from "../../db/schema.js";

export type InvoiceRow = Selectable<InvoicesTable>;

/** SQL for invoices and their numbering; always scoped by project or by ids the caller could read. */
export const invoicesRepository = {
  /**
   * Takes the project's next sequence number inside the caller's transaction. The upsert holds the
   * counter's row (PostgreSQL) or the database write lock (SQLite) until the transaction ends, so
   * concurrent issues queue here and a rolled-back one gives its number back: no gaps, no repeats.
   */
  async nextSequence(db: Db, projectId: string): Promise<number> {
    const row = await db
      .insertInto("invoice_counters")
      .values({ project_id: projectId, last_sequence: 1 })
      .onConflict((oc) =>
        oc
          .column("project_id")
          .doUpdateSet((eb) => ({ last_sequence: eb("invoice_counters.last_sequence", "+", 1) })),
      )
      .returning("last_sequence")
      .executeTakeFirstOrThrow();
    return Number(row.last_sequence);
  },

  async insert(db: Db, row: InvoiceRow): Promise<void> {
    await db.insertInto("invoices").values(row).execute();
  },

  /** The invoices and credit notes of some orders of a project, in the order they were issued. */
  ofOrders(db: Db, projectId: string, orderIds: readonly string[]): Promise<InvoiceRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("invoices")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("order_id", "in", [...orderIds])
      .orderBy("sequence")
      .execute();
  },

  /** Invoices of any project by order id, for a loader whose orders the caller could read. */
  ofOrderIds(db: Db, orderIds: readonly string[]): Promise<InvoiceRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("invoices")
      .selectAll()
      .where("order_id", "in", [...orderIds])
      .orderBy("sequence")
      .execute();
  },

  /** Unscoped lookup for a download by id: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<InvoiceRow | undefined> {
    return db.selectFrom("invoices").selectAll().where("id", "=", id).executeTakeFirst();
  },
};
