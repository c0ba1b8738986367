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

  async touch(
    db: Db,
    id: string,
    changes: Pick<AuthSessionRow, "last_seen_at" | "expires_at"> &
      Partial<Pick<AuthSessionRow, "user_agent" | "ip">>,
  ): Promise<void> {
    await db.updateTable("auth_sessions").set(changes).where("id", "=", id).execute();
  },

  /** A user's unexpired sessions, most recently used first (a user has a handful at most). */
  listLive(db: Db, userId: string, now: string): Promise<AuthSessionRow[]> {
    return db
      .selectFrom("auth_sessions")
      .selectAll()
      .where("user_id", "=", userId)
      .where("expires_at", ">", now)
      .orderBy("last_seen_at", "desc")
      .orderBy("id")
      .limit(200)
      .execute();
  },

  /** Deletes one session of this user only; false when they have none with that id. */
  async deleteOfUser(db: Db, userId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom("auth_sessions")
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
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
