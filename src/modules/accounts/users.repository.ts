import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { UsersTable } from "../../db/schema.js";

export type UserRow = Selectable<UsersTable>;

/** SQL for users; nothing else reads or writes the users table. */
export const usersRepository = {
  findById(db: Db, id: string): Promise<UserRow | undefined> {
    return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  findByEmail(db: Db, email: string): Promise<UserRow | undefined> {
    return db
      .selectFrom("users")
      .selectAll()
      .where("email_normalized", "=", email.trim().toLowerCase())
      .executeTakeFirst();
  },

  async insert(db: Db, row: UserRow): Promise<void> {
    await db.insertInto("users").values(row).execute();
  },

  async update(db: Db, id: string, changes: Partial<Omit<UserRow, "id">>): Promise<void> {
    await db.updateTable("users").set(changes).where("id", "=", id).execute();
  },

  /** Deletes the account; sessions, email links and memberships go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom("users").where("id", "=", id).execute();
  },
};
