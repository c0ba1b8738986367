import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { AuthSessionsTable } from "../../db/schema.js";

export type AuthSessionRow = Selectable<AuthSessionsTable>;

/** SQL for dashboard login sessions; rows are found by the SHA-256 of the cookie value. */
export const sessionsRepository = {
  findById(db: Db, id: string): Promise<AuthSessionRow | undefined> {
    return db.selectFrom("auth_sessions").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async insert(db: Db, row: AuthSessionRow): Promise<void> {
    await db.insertInto("auth_sessions").values(row).execute();
  },

  async touch(db: Db, id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await db
      .updateTable("auth_sessions")
      .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
      .where("id", "=", id)
      .execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom("auth_sessions").where("id", "=", id).execute();
  },

  /** Ends every session of a user except `keepId` (none kept when undefined). */
  async deleteForUser(db: Db, userId: string, keepId?: string): Promise<void> {
    let query = db.deleteFrom("auth_sessions").where("user_id", "=", userId);
    if (keepId) query = query.where("id", "!=", keepId);
    await query.execute();
  },

  /** Removes expired rows of one user, so the table does not grow with abandoned sessions. */
  async deleteExpiredForUser(db: Db, userId: string, now: string): Promise<void> {
    await db
      .deleteFrom("auth_sessions")
      .where("user_id", "=", userId)
      .where("expires_at", "<", now)
      .execute();
  },
};
