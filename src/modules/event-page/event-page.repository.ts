import type { Insertable, Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { EventPageSettingsTable, PublicRegistrationsTable } from "../../db/schema.js";

export type EventPageSettingsRow = Selectable<EventPageSettingsTable>;
export type PublicRegistrationRow = Selectable<PublicRegistrationsTable>;

/** SQL for the event page's settings and the registrations made on it; always scoped by project. */
export const eventPageRepository = {
  findSettings(db: Db, projectId: string): Promise<EventPageSettingsRow | undefined> {
    return db
      .selectFrom("event_page_settings")
      .selectAll()
      .where("project_id", "=", projectId)
      .executeTakeFirst();
  },

  async upsertSettings(db: Db, row: EventPageSettingsRow): Promise<void> {
    const { project_id: _key, ...changes } = row;
    await db
      .insertInto("event_page_settings")
      .values(row)
      .onConflict((oc) => oc.column("project_id").doUpdateSet(changes))
      .execute();
  },

  findByIdempotencyKey(db: Db, projectId: string, key: string): Promise<PublicRegistrationRow | undefined> {
    return db
      .selectFrom("public_registrations")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
  },

  findByTokenHash(db: Db, projectId: string, tokenHash: string): Promise<PublicRegistrationRow | undefined> {
    return db
      .selectFrom("public_registrations")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("manage_token_hash", "=", tokenHash)
      .executeTakeFirst();
  },

  /**
   * Records a page registration, or gives an attendee that already has one a new manage secret (the
   * old link stops working: only the newest email's link is valid).
   */
  /** The billing details given with an attendee's page registration, if any. */
  async billingDetailsOf(db: Db, projectId: string, attendeeId: string): Promise<string | null> {
    const row = await db
      .selectFrom("public_registrations")
      .select("billing_details")
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .executeTakeFirst();
    return row?.billing_details ?? null;
  },

  async upsert(db: Db, row: Insertable<PublicRegistrationsTable>): Promise<void> {
    await db
      .insertInto("public_registrations")
      .values(row)
      .onConflict((oc) =>
        oc.column("attendee_id").doUpdateSet({
          manage_token_hash: row.manage_token_hash,
          idempotency_key: row.idempotency_key,
        }),
      )
      .execute();
  },
};
