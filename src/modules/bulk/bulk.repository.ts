import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { BulkOperationsTable } from "../../db/schema.js";

/** A bulk operation's row. */
export type BulkRow = Selectable<BulkOperationsTable>;

/** Bulk operations' SQL; every read by an app names the app and the project. */
export const bulkRepository = {
  async insert(db: Db, row: BulkRow): Promise<void> {
    await db.insertInto("bulk_operations").values(row).execute();
  },
  /** The app's newest operation in the project. */
  latest(db: Db, appId: string, projectId: string): Promise<BulkRow | undefined> {
    return db
      .selectFrom("bulk_operations")
      .selectAll()
      .where("app_id", "=", appId)
      .where("project_id", "=", projectId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  },
  byId(db: Db, id: string): Promise<BulkRow | undefined> {
    return db.selectFrom("bulk_operations").selectAll().where("id", "=", id).executeTakeFirst();
  },
  /** Cancels the app's open operation in the project; true when there was one. */
  async cancelOpen(db: Db, appId: string, projectId: string, now: string): Promise<boolean> {
    const result = await db
      .updateTable("bulk_operations")
      .set({ status: "CANCELED", finished_at: now, lease_owner: null, lease_until: null })
      .where("app_id", "=", appId)
      .where("project_id", "=", projectId)
      .where("status", "in", ["CREATED", "RUNNING"])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
  /** The oldest job waiting to start. */
  nextCreated(db: Db): Promise<Pick<BulkRow, "id"> | undefined> {
    return db
      .selectFrom("bulk_operations")
      .select("id")
      .where("status", "=", "CREATED")
      .orderBy("created_at")
      .limit(1)
      .executeTakeFirst();
  },
  /**
   * Claims a waiting job for `owner` until `until`: a conditional update, so of two processes
   * claiming the same job one changes the row and the other none (both engines, no row locks).
   */
  async claim(db: Db, id: string, owner: string, until: string): Promise<boolean> {
    const result = await db
      .updateTable("bulk_operations")
      .set({ status: "RUNNING", lease_owner: owner, lease_until: until })
      .where("id", "=", id)
      .where("status", "=", "CREATED")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
  /** Renews the lease while the job is still this owner's and running; false once it is not. */
  async renew(db: Db, id: string, owner: string, until: string, count: number): Promise<boolean> {
    const result = await db
      .updateTable("bulk_operations")
      .set({ lease_until: until, object_count: count })
      .where("id", "=", id)
      .where("status", "=", "RUNNING")
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
  /** Ends the owner's running job; false when it was cancelled (or taken) meanwhile. */
  async finish(
    db: Db,
    id: string,
    owner: string,
    end: Pick<BulkRow, "status" | "object_count" | "error" | "finished_at" | "expires_at">,
  ): Promise<boolean> {
    const result = await db
      .updateTable("bulk_operations")
      .set({ ...end, lease_owner: null, lease_until: null })
      .where("id", "=", id)
      .where("status", "=", "RUNNING")
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
  /** Fails the running jobs whose holder stopped renewing before `now`; their ids. */
  async failAbandoned(db: Db, now: string, reason: string): Promise<string[]> {
    const rows = await db
      .updateTable("bulk_operations")
      .set({ status: "FAILED", error: reason, finished_at: now, lease_owner: null, lease_until: null })
      .where("status", "=", "RUNNING")
      .where("lease_until", "<", now)
      .returning("id")
      .execute();
    return rows.map((r) => r.id);
  },
  /** Marks finished files past their expiry EXPIRED; their ids (the files to delete). */
  async expire(db: Db, now: string): Promise<string[]> {
    const rows = await db
      .updateTable("bulk_operations")
      .set({ status: "EXPIRED" })
      .where("status", "=", "COMPLETED")
      .where("expires_at", "<", now)
      .returning("id")
      .execute();
    return rows.map((r) => r.id);
  },
};
