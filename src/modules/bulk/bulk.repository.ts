import { type Selectable, SqliteAdapter, sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { BulkOperationChunksTable, BulkOperationsTable } from "../../db/schema.js";
import { containing, type ErasedPerson } from "../../shared/erasure.js";

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
  /** Marks finished results past their expiry EXPIRED; their ids (the chunks to delete). */
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
  /**
   * Adds a chunk to the owner's running job, only while it still is (false once it is not). The job's
   * row is read FOR SHARE on PostgreSQL: an erasure that is ending the job holds its row, so the chunk
   * waits, sees the job ended and is not written; one written first is there for the erasure's delete.
   * SQLite runs one write at a time, so the condition alone does it.
   */
  async addChunk(db: Db, owner: string, chunk: Selectable<BulkOperationChunksTable>): Promise<boolean> {
    const running = db
      .selectFrom("bulk_operations")
      .select((eb) => [
        eb.val(chunk.operation_id).as("operation_id"),
        eb.val(chunk.project_id).as("project_id"),
        eb.val(chunk.seq).as("seq"),
        eb.val(chunk.lines).as("lines"),
      ])
      .where("id", "=", chunk.operation_id)
      .where("status", "=", "RUNNING")
      .where("lease_owner", "=", owner);
    const result = await db
      .insertInto("bulk_operation_chunks")
      .columns(["operation_id", "project_id", "seq", "lines"])
      .expression(db.getExecutor().adapter instanceof SqliteAdapter ? running : running.forShare())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },
  /** Up to `limit` of a result's chunks after `afterSeq`, in order. */
  chunks(db: Db, id: string, afterSeq: number, limit: number): Promise<{ seq: number; lines: string }[]> {
    return db
      .selectFrom("bulk_operation_chunks")
      .select(["seq", "lines"])
      .where("operation_id", "=", id)
      .where("seq", ">", afterSeq)
      .orderBy("seq")
      .limit(limit)
      .execute();
  },
  /**
   * Deletes what operations wrote. Whoever ends an operation deletes its chunks after ending it (a
   * cancel, a failure, an abandoned lease, an expiry, an erasure): a chunk racing in is then refused
   * (`addChunk`) or already there to be deleted.
   */
  async deleteChunks(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await db.deleteFrom("bulk_operation_chunks").where("operation_id", "in", ids).execute();
  },
  /** The project's waiting and running operations (an erasure ends them: a page may read the person). */
  async open(db: Db, projectId: string): Promise<string[]> {
    const rows = await db
      .selectFrom("bulk_operations")
      .select("id")
      .where("project_id", "=", projectId)
      .where("status", "in", ["CREATED", "RUNNING"])
      .execute();
    return rows.map((r) => r.id);
  },
  /** The project's operations whose result may name an erased person: their id, address or name. */
  async mentioning(db: Db, person: ErasedPerson): Promise<string[]> {
    const rows = await db
      .selectFrom("bulk_operation_chunks")
      .select("operation_id")
      .distinct()
      .where("project_id", "=", person.projectId)
      .where((eb) =>
        eb.or(
          [person.attendeeId, person.email, person.name].map(
            (text) => sql<boolean>`lower(lines) like ${containing(text)} escape '\\'`,
          ),
        ),
      )
      .execute();
    return rows.map((r) => r.operation_id);
  },
  /** Ends operations whose result an erasure took: finished ones expire, open ones fail. */
  async withdraw(db: Db, ids: readonly string[], now: string, reason: string): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable("bulk_operations")
      .set({ status: "EXPIRED" })
      .where("id", "in", ids)
      .where("status", "=", "COMPLETED")
      .execute();
    await db
      .updateTable("bulk_operations")
      .set({ status: "FAILED", error: reason, finished_at: now, lease_owner: null, lease_until: null })
      .where("id", "in", ids)
      .where("status", "in", ["CREATED", "RUNNING"])
      .execute();
  },
};
