import { sql } from "kysely";
import type { Db } from "../../db/database.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";
import type { DiscountCodeRow } from "./discount-codes.model.js";

/** SQL for discount codes; always scoped by project. */
export const discountCodesRepository = {
  /** Codes by creation, of one batch or all. */
  list(db: Db, projectId: string, batch: string | undefined, window: PageWindow): Promise<DiscountCodeRow[]> {
    let q = db.selectFrom("discount_codes").selectAll().where("project_id", "=", projectId);
    if (batch !== undefined) q = q.where("batch", "=", batch);
    return applyKeyset(q, window, "created_at", "id").execute();
  },

  async count(db: Db, projectId: string, batch: string | undefined): Promise<number> {
    let q = db
      .selectFrom("discount_codes")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId);
    if (batch !== undefined) q = q.where("batch", "=", batch);
    return Number((await q.executeTakeFirstOrThrow()).n);
  },

  /** Every code of a project (or one batch) for the CSV export, oldest first, at most `limit`. */
  all(db: Db, projectId: string, batch: string | undefined, limit: number): Promise<DiscountCodeRow[]> {
    let q = db.selectFrom("discount_codes").selectAll().where("project_id", "=", projectId);
    if (batch !== undefined) q = q.where("batch", "=", batch);
    return q.orderBy("created_at").orderBy("id").limit(limit).execute();
  },

  find(db: Db, projectId: string, id: string): Promise<DiscountCodeRow | undefined> {
    return db
      .selectFrom("discount_codes")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for by-id mutations: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<DiscountCodeRow | undefined> {
    return db.selectFrom("discount_codes").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** A code by what a buyer typed, upper-cased (`codeKey`). */
  findByKey(db: Db, projectId: string, key: string): Promise<DiscountCodeRow | undefined> {
    return db
      .selectFrom("discount_codes")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("code_key", "=", key)
      .executeTakeFirst();
  },

  /** Which of `keys` a project has already (a bulk generation retries those). */
  async takenKeys(db: Db, projectId: string, keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await db
      .selectFrom("discount_codes")
      .select("code_key")
      .where("project_id", "=", projectId)
      .where("code_key", "in", [...keys])
      .execute();
    return new Set(rows.map((r) => r.code_key));
  },

  async insert(db: Db, rows: readonly DiscountCodeRow[]): Promise<void> {
    // 200 codes of 16 columns stay under SQLite's and PostgreSQL's parameter limits per statement.
    for (let i = 0; i < rows.length; i += 200) {
      await db
        .insertInto("discount_codes")
        .values(rows.slice(i, i + 200))
        .execute();
    }
  },

  /** Which of `ids` are ticket types of the project (a code may name only those). */
  async delete(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("discount_codes").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  /**
   * Counts `n` more uses of a code in one guarded statement, or none when that would pass its
   * limit: two orders racing for the last use cannot both pass, on either engine, whatever locks
   * the caller holds. Returns whether the uses were counted.
   */
  async claim(db: Db, projectId: string, id: string, n: number, now: string): Promise<boolean> {
    const row = await db
      .updateTable("discount_codes")
      .set((eb) => ({ uses: eb("uses", "+", n), updated_at: now }))
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .where((eb) => eb.or([eb("max_uses", "is", null), eb(eb("uses", "+", n), "<=", eb.ref("max_uses"))]))
      .returning("id")
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Gives back `n` uses (an order cancelled or expired), never below zero. */
  async release(db: Db, projectId: string, id: string, n: number, now: string): Promise<void> {
    await db
      .updateTable("discount_codes")
      // CASE, not max()/greatest(): one spelling both engines read as a scalar.
      .set({ uses: sql<number>`case when uses >= ${n} then uses - ${n} else 0 end`, updated_at: now })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },
};
