import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { EmailTokensTable } from "../../db/schema.js";

export type EmailTokenRow = Selectable<EmailTokensTable>;
export type EmailTokenPurpose = EmailTokenRow["purpose"];

/** SQL for one-time email links; only the hash of a token is stored. */
export const emailTokensRepository = {
  async insert(db: Db, row: EmailTokenRow): Promise<void> {
    await db.insertInto("email_tokens").values(row).execute();
  },

  findByHash(db: Db, tokenHash: string, purpose: EmailTokenPurpose): Promise<EmailTokenRow | undefined> {
    return db
      .selectFrom("email_tokens")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .where("purpose", "=", purpose)
      .executeTakeFirst();
  },

  /** Marks a token used; false when another request used it first (the link works once). */
  async markUsed(db: Db, tokenHash: string, usedAt: string): Promise<boolean> {
    const result = await db
      .updateTable("email_tokens")
      .set({ used_at: usedAt })
      .where("token_hash", "=", tokenHash)
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** The newest usable token of a purpose for a user (the pending email change the account page shows). */
  findPending(
    db: Db,
    userId: string,
    purpose: EmailTokenPurpose,
    now: string,
  ): Promise<EmailTokenRow | undefined> {
    return db
      .selectFrom("email_tokens")
      .selectAll()
      .where("user_id", "=", userId)
      .where("purpose", "=", purpose)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
  },

  /** Retires a user's unused tokens of one purpose: only the newest link sent stays valid. */
  async retireUnused(db: Db, userId: string, purpose: EmailTokenPurpose, usedAt: string): Promise<void> {
    await db
      .updateTable("email_tokens")
      .set({ used_at: usedAt })
      .where("user_id", "=", userId)
      .where("purpose", "=", purpose)
      .where("used_at", "is", null)
      .execute();
  },
};
