import type { Selectable } from "kysely";
import type { Db } from "../../../db/database.js";
import type { PaymentAccountsTable } from "../../../db/schema.js";

export type PaymentAccountRow = Selectable<PaymentAccountsTable>;

/** SQL for a project's provider keys (sealed) and the provider notifications it applied. */
export const paymentAccountsRepository = {
  find(db: Db, projectId: string): Promise<PaymentAccountRow | undefined> {
    return db
      .selectFrom("payment_accounts")
      .selectAll()
      .where("project_id", "=", projectId)
      .executeTakeFirst();
  },

  /** Whether the project takes card payments (its keys are set), without reading them. */
  async exists(db: Db, projectId: string): Promise<boolean> {
    const row = await db
      .selectFrom("payment_accounts")
      .select("project_id")
      .where("project_id", "=", projectId)
      .executeTakeFirst();
    return row !== undefined;
  },

  async upsert(db: Db, row: PaymentAccountRow): Promise<void> {
    await db
      .insertInto("payment_accounts")
      .values(row)
      .onConflict((oc) =>
        oc.column("project_id").doUpdateSet({
          stripe_secret_key: row.stripe_secret_key,
          stripe_webhook_secret: row.stripe_webhook_secret,
          stripe_key_hint: row.stripe_key_hint,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },

  async remove(db: Db, projectId: string): Promise<void> {
    await db.deleteFrom("payment_accounts").where("project_id", "=", projectId).execute();
  },

  /**
   * Records a provider notification as applied; false when it already was (a replay or a duplicate
   * delivery). Inside the transaction of its effect, so the two commit together or not at all.
   */
  async markApplied(db: Db, projectId: string, eventId: string, type: string, at: string): Promise<boolean> {
    const result = await db
      .insertInto("payment_notifications")
      .values({ project_id: projectId, event_id: eventId, type, received_at: at })
      .onConflict((oc) => oc.columns(["project_id", "event_id"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  },
};
