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

  async upsertSettings(db: Db, row: Insertable<EventPageSettingsTable>): Promise<void> {
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

  /** The registration a manage link's secret hash belongs to: its first link, or one sent since. */
  async findByTokenHash(
    db: Db,
    projectId: string,
    tokenHash: string,
  ): Promise<{ attendee_id: string } | undefined> {
    const first = await db
      .selectFrom("public_registrations")
      .select("attendee_id")
      .where("project_id", "=", projectId)
      .where("manage_token_hash", "=", tokenHash)
      .executeTakeFirst();
    return (
      first ??
      db
        .selectFrom("registration_links")
        .select("attendee_id")
        .where("project_id", "=", projectId)
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst()
    );
  },

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

  /**
   * Records a page registration with its first manage link; for an attendee that has one already,
   * only the form's idempotency key moves (the links already sent keep working). True when the
   * row is new, so `token_hash` is the registration's first link.
   */
  async record(db: Db, row: PublicRegistrationRow): Promise<boolean> {
    const inserted = await db
      .insertInto("public_registrations")
      .values(row)
      .onConflict((oc) => oc.column("attendee_id").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
    await db
      .updateTable("public_registrations")
      .set({ idempotency_key: row.idempotency_key })
      .where("attendee_id", "=", row.attendee_id)
      .execute();
    return false;
  },

  /** A further manage link of an attendee (mailed on a repeated registration). */
  async addLink(
    db: Db,
    row: { token_hash: string; attendee_id: string; project_id: string; created_at: string },
  ) {
    await db.insertInto("registration_links").values(row).execute();
  },

  /** An erased attendee's registration on the event page: no billing details, no manage link. */
  async forgetRegistration(trx: Db, projectId: string, attendeeId: string): Promise<void> {
    await trx
      .updateTable("public_registrations")
      .set({ billing_details: null })
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .execute();
    await trx
      .deleteFrom("registration_links")
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .execute();
  },
};
