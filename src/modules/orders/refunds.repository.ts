import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { OrderRefundsTable } from "../../db/schema.js";

export type RefundRow = Selectable<OrderRefundsTable>;

/** SQL for refunds; always scoped by project, or by orders the caller could read. */
export const refundsRepository = {
  async insert(db: Db, row: RefundRow): Promise<void> {
    await db.insertInto("order_refunds").values(row).execute();
  },

  async update(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Pick<RefundRow, "state" | "provider_refund_id" | "updated_at">>,
  ) {
    await db
      .updateTable("order_refunds")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  /** One refund of a project, as it stands now (read again under its order's lock). */
  find(db: Db, projectId: string, id: string): Promise<RefundRow | undefined> {
    return db
      .selectFrom("order_refunds")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Whether a refund made or under way cancels this ticket already. */
  async cancelsTicket(db: Db, projectId: string, attendeeId: string): Promise<boolean> {
    const row = await db
      .selectFrom("order_refunds")
      .select("id")
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .where("state", "!=", "FAILED")
      .executeTakeFirst();
    return row !== undefined;
  },

  /** The refunds of an order still waiting for the provider's answer (oldest first). */
  pending(db: Db, projectId: string, orderId: string): Promise<RefundRow[]> {
    return db
      .selectFrom("order_refunds")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("order_id", "=", orderId)
      .where("state", "=", "PENDING")
      .orderBy("created_at")
      .execute();
  },

  /** The refunds of some orders (one statement), oldest first. */
  ofOrders(db: Db, orderIds: readonly string[]): Promise<RefundRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom("order_refunds")
      .selectAll()
      .where("order_id", "in", [...orderIds])
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  },
};
