import type { Selectable } from "kysely";
import type { Db, Tx } from "../../db/database.js";
import type { IdempotencyKeysTable } from "../../db/schema.js";

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** The SQL of `idempotency_keys`. Every statement is one statement: its atomicity is the lock. */
export const idempotencyRepository = {
  /** Inserts the key as running unless a row exists for it; true when this call inserted it. */
  async claim(
    db: Db,
    row: {
      scope: string;
      key: string;
      fingerprint: string;
      lockedUntil: string;
      now: string;
      expiresAt: string;
    },
  ): Promise<boolean> {
    const inserted = await db
      .insertInto("idempotency_keys")
      .values({
        scope: row.scope,
        key: row.key,
        fingerprint: row.fingerprint,
        locked_until: row.lockedUntil,
        created_at: row.now,
        expires_at: row.expiresAt,
      })
      .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
      .returning("key")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  async find(db: Db, scope: string, key: string): Promise<IdempotencyRow | undefined> {
    return db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("scope", "=", scope)
      .where("key", "=", key)
      .executeTakeFirst();
  },

  /**
   * Takes over a run whose lock ended without an answer (its process died) before it changed
   * anything: true when this call took it. The condition is in the statement, so of two processes at most one takes it.
   */
  async takeOver(db: Db, scope: string, key: string, now: string, lockedUntil: string): Promise<boolean> {
    const taken = await db
      .updateTable("idempotency_keys")
      .set({ locked_until: lockedUntil })
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("status", "is", null)
      .where("committed_at", "is", null)
      .where("locked_until", "<=", now)
      .returning("key")
      .executeTakeFirst();
    return taken !== undefined;
  },

  /** Stores the answer of the run holding the lock; false when the lock was lost meanwhile. */
  async complete(
    db: Db,
    scope: string,
    key: string,
    lockedUntil: string,
    answer: { status: number; media: string; body: string },
  ): Promise<boolean> {
    const done = await db
      .updateTable("idempotency_keys")
      .set({ status: answer.status, media: answer.media, body: answer.body, locked_until: null })
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("status", "is", null)
      .where("locked_until", "=", lockedUntil)
      .returning("key")
      .executeTakeFirst();
    return done !== undefined;
  },

  /**
   * Records, inside a write's transaction, that the run holding the lock changed something; it
   * commits or rolls back with the write.
   */
  async markCommitted(trx: Tx, scope: string, key: string, lockedUntil: string, now: string): Promise<void> {
    await trx
      .updateTable("idempotency_keys")
      .set({ committed_at: now })
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("locked_until", "=", lockedUntil)
      .where("committed_at", "is", null)
      .execute();
  },

  /**
   * Ends a run that left nothing to replay, if it still holds its lock: a run that changed nothing
   * releases its key for the retry; one that committed a change only unlocks it, so the retry hears
   * that the answer was lost instead of running again.
   */
  async release(db: Db, scope: string, key: string, lockedUntil: string): Promise<void> {
    const held = db
      .updateTable("idempotency_keys")
      .set({ locked_until: null })
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("status", "is", null)
      .where("locked_until", "=", lockedUntil);
    await held.where("committed_at", "is not", null).execute();
    await db
      .deleteFrom("idempotency_keys")
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("status", "is", null)
      .where("locked_until", "=", lockedUntil)
      .where("committed_at", "is", null)
      .execute();
  },

  /** Deletes one key if it expired (so it can be claimed anew). */
  async deleteExpired(db: Db, scope: string, key: string, now: string): Promise<void> {
    await db
      .deleteFrom("idempotency_keys")
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("expires_at", "<=", now)
      .execute();
  },

  /**
   * Deletes the oldest expired keys, about `batch` of them (keys expiring at the same instant as the
   * batch's last go with it); returns how many. Bounded, so SQLite's one writer is never held long.
   */
  async pruneBatch(db: Db, now: string, batch: number): Promise<number> {
    const last = await db
      .selectFrom("idempotency_keys")
      .select("expires_at")
      .where("expires_at", "<=", now)
      .orderBy("expires_at")
      .limit(1)
      .offset(batch - 1)
      .executeTakeFirst();
    const result = await db
      .deleteFrom("idempotency_keys")
      .where("expires_at", "<=", last?.expires_at ?? now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
