import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { WaitingListEntriesTable, WaitingListState } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";

export type WaitingListEntryRow = Selectable<WaitingListEntriesTable>;

/** States in which an entry holds a place in line (one per email and ticket type). */
const activeStates: readonly WaitingListState[] = ["WAITING", "OFFERED"];

/** SQL of the waiting list; every statement is scoped by project (or by an offer's secret). */
export const waitingListRepository = {
  async insert(db: Db, row: WaitingListEntryRow): Promise<void> {
    await db.insertInto("waiting_list_entries").values(row).execute();
  },

  /** The active entry of an address for a ticket type (joining twice finds it). */
  findActive(db: Db, projectId: string, ticketTypeId: string, emailNormalized: string) {
    return db
      .selectFrom("waiting_list_entries")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", ticketTypeId)
      .where("email_normalized", "=", emailNormalized)
      .where("state", "in", [...activeStates])
      .executeTakeFirst();
  },

  findById(db: Db, projectId: string, id: string): Promise<WaitingListEntryRow | undefined> {
    return db
      .selectFrom("waiting_list_entries")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)`: the caller resolves the row's project access. */
  locate(db: Db, id: string): Promise<WaitingListEntryRow | undefined> {
    return db.selectFrom("waiting_list_entries").selectAll().where("id", "=", id).executeTakeFirst();
  },

  findByOfferHash(db: Db, projectId: string, hash: string): Promise<WaitingListEntryRow | undefined> {
    return db
      .selectFrom("waiting_list_entries")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("offer_token_hash", "=", hash)
      .executeTakeFirst();
  },

  /** What an offer's email says: the entry, its ticket type's name and the project's name and zone. */
  offerMailContent(db: Db, projectId: string, id: string) {
    return db
      .selectFrom("waiting_list_entries as w")
      .innerJoin("ticket_types as t", "t.id", "w.ticket_type_id")
      .innerJoin("projects as p", "p.id", "w.project_id")
      .select(["w.id", "w.name", "w.email", "w.state", "w.offered_at", "w.offer_expires_at"])
      .select(["t.name as ticket_name", "p.name as project_name", "p.timezone"])
      .where("w.project_id", "=", projectId)
      .where("w.id", "=", id)
      .executeTakeFirst();
  },

  /** A ticket type's entries in line order (first come, first served), paged. */
  list(db: Db, projectId: string, ticketTypeId: string | undefined, window: PageWindow) {
    let q = db.selectFrom("waiting_list_entries").selectAll().where("project_id", "=", projectId);
    if (ticketTypeId) q = q.where("ticket_type_id", "=", ticketTypeId);
    return applyKeyset(q, window, "created_at", "id").execute();
  },

  async count(db: Db, projectId: string, ticketTypeId: string | undefined): Promise<number> {
    let q = db
      .selectFrom("waiting_list_entries")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId);
    if (ticketTypeId) q = q.where("ticket_type_id", "=", ticketTypeId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  },

  /** The first `limit` WAITING entries of a ticket type, in line order. */
  nextInLine(db: Db, projectId: string, ticketTypeId: string, limit: number) {
    return db
      .selectFrom("waiting_list_entries")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", ticketTypeId)
      .where("state", "=", "WAITING")
      .orderBy("created_at")
      .orderBy("id")
      .limit(limit)
      .execute();
  },

  /** Ticket types (with their project) that have someone waiting or an offer that lapsed by `now`. */
  typesToServe(db: Db, now: string, limit: number) {
    return db
      .selectFrom("waiting_list_entries")
      .select(["project_id", "ticket_type_id"])
      .where((eb) =>
        eb.or([
          eb("state", "=", "WAITING"),
          eb.and([eb("state", "=", "OFFERED"), eb("offer_expires_at", "<=", now)]),
        ]),
      )
      .groupBy(["project_id", "ticket_type_id"])
      .orderBy("project_id")
      .orderBy("ticket_type_id")
      .limit(limit)
      .execute();
  },

  /** Offers of a ticket type that lapsed by `now`. */
  lapsedOffers(db: Db, projectId: string, ticketTypeId: string, now: string) {
    return db
      .selectFrom("waiting_list_entries")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("ticket_type_id", "=", ticketTypeId)
      .where("state", "=", "OFFERED")
      .where("offer_expires_at", "<=", now)
      .execute();
  },

  /**
   * Moves an entry from one of `from` to a new state, only if it is still in one of them: the
   * statement's own result says whether this caller made the change (two racing callers: one wins).
   */
  async transition(
    db: Db,
    projectId: string,
    id: string,
    from: readonly WaitingListState[],
    changes: Partial<Omit<WaitingListEntryRow, "id" | "project_id">> & { state: WaitingListState },
  ): Promise<boolean> {
    const result = await db
      .updateTable("waiting_list_entries")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .where("state", "in", [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async offerHours(db: Db, projectId: string): Promise<number | undefined> {
    const row = await db
      .selectFrom("waiting_list_settings")
      .select("offer_hours")
      .where("project_id", "=", projectId)
      .executeTakeFirst();
    return row ? Number(row.offer_hours) : undefined;
  },

  async setOfferHours(db: Db, projectId: string, hours: number): Promise<void> {
    await db
      .insertInto("waiting_list_settings")
      .values({ project_id: projectId, offer_hours: hours })
      .onConflict((oc) => oc.column("project_id").doUpdateSet({ offer_hours: hours }))
      .execute();
  },

  /** The entries of an erased attendee's address in the project: out of line, personal fields replaced. */
  async erase(
    db: Db,
    projectId: string,
    emailNormalized: string,
    replacement: { name: string; email: string },
  ) {
    // Out of line first: no offer goes to an address that cannot receive it.
    await db
      .updateTable("waiting_list_entries")
      .set({ state: "REMOVED", offer_expires_at: null })
      .where("project_id", "=", projectId)
      .where("email_normalized", "=", emailNormalized)
      .where("state", "in", [...activeStates])
      .execute();
    await db
      .updateTable("waiting_list_entries")
      .set({
        name: replacement.name,
        email: replacement.email,
        email_normalized: replacement.email,
        offer_token_hash: null,
      })
      .where("project_id", "=", projectId)
      .where("email_normalized", "=", emailNormalized)
      .execute();
  },
};
