import { type Selectable, sql } from "kysely";
import { type Db, reusableQuery } from "../../db/database.js";
import { everyColumn, type IdList, idList, inIdList, projectedQuery } from "../../db/projection.js";
import type { CheckInsTable } from "../../db/schema.js";

export type CheckInRow = Selectable<CheckInsTable>;

// The loader's statement: one for any number of ids (see projectedQuery). Served by the partial
// index of active check-ins; `in (?, ?, …)` went through the index of all of them.
const checkInColumns = everyColumn<CheckInRow>()([
  "id",
  "project_id",
  "attendee_id",
  "checked_in_at",
  "by_user_id",
  "by_app_id",
  "undone_at",
]);
const activeOfAttendees = projectedQuery(
  checkInColumns,
  [],
  (db, columns, ids: IdList) =>
    db
      .selectFrom("check_ins")
      .select(columns)
      .where(inIdList(db, "attendee_id", ids))
      .where("undone_at", "is", null),
  [""] as const,
);
// The statements of every check-in and undo, compiled once (see reusableQuery). Their columns are
// listed, not `*`, so that PostgreSQL keeps them prepared.
const activeOf = reusableQuery(
  (db, projectId: string, attendeeId: string) =>
    db
      .selectFrom("check_ins")
      .select(checkInColumns)
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .where("undone_at", "is", null),
  ["", ""] as const,
);
// The check-in's INSERT reads the attendee it names, so it inserts nothing for an attendee who is
// missing from the project or cancelled. Run after the statement that locks the attendee (see
// lockAndCheckIn), it reads, on PostgreSQL, with a snapshot taken after that lock.
const insertUnlessActive = reusableQuery(
  (
    db,
    id: string,
    at: string,
    byUserId: string | null,
    byAppId: string | null,
    projectId: string,
    attendeeId: string,
  ) =>
    db
      .insertInto("check_ins")
      .columns(["id", "project_id", "attendee_id", "checked_in_at", "by_user_id", "by_app_id"])
      .expression(
        db
          .selectFrom("attendees")
          .select((eb) => [
            eb.val(id).as("id"),
            "project_id",
            "id as attendee_id",
            eb.val(at).as("checked_in_at"),
            eb.val(byUserId).as("by_user_id"),
            eb.val(byAppId).as("by_app_id"),
          ])
          .where("project_id", "=", projectId)
          .where("id", "=", attendeeId)
          .where("status", "<>", sql.lit("CANCELLED"))
          // A ticket still held by an unpaid order is not admitted (kept orders, paid at the door or
          // by invoice, hold nothing and are).
          .where("held_until", "is", null),
      )
      .onConflict((oc) => oc.column("attendee_id").where("undone_at", "is", null).doNothing())
      .returning(checkInColumns),
  ["", "", null, null, "", ""] as const,
);
const undoActiveOf = reusableQuery(
  (db, at: string, projectId: string, attendeeId: string) =>
    db
      .updateTable("check_ins")
      .set({ undone_at: at })
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .where("undone_at", "is", null)
      .returning(checkInColumns),
  ["", "", ""] as const,
);

/** SQL for check-ins; always scoped by project or by attendee ids the caller already authorized. */
export const checkinsRepository = {
  /** Active (not undone) check-ins of the attendees (one statement for any number of ids). */
  activeByAttendeeIds(db: Db, attendeeIds: readonly string[]): Promise<CheckInRow[]> {
    return activeOfAttendees(db, undefined, idList(db, attendeeIds));
  },

  /** Every check-in of the attendees, oldest first (one statement for any number of ids). */
  historyByAttendeeIds(db: Db, attendeeIds: readonly string[]): Promise<CheckInRow[]> {
    return db
      .selectFrom("check_ins")
      .selectAll()
      .where("attendee_id", "in", [...attendeeIds])
      .orderBy("checked_in_at")
      .orderBy("id")
      .execute();
  },

  async findActive(db: Db, projectId: string, attendeeId: string): Promise<CheckInRow | undefined> {
    return (await activeOf(db, projectId, attendeeId))[0];
  },

  /** The attendee's most recent check-in, active or undone. */
  findLatest(db: Db, projectId: string, attendeeId: string): Promise<CheckInRow | undefined> {
    return db
      .selectFrom("check_ins")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("attendee_id", "=", attendeeId)
      .orderBy("checked_in_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  },

  /**
   * Inserts an active check-in unless the attendee already has one: the partial unique index
   * decides, so two racing check-ins leave exactly one row and neither fails. Returns the row this
   * call made, or undefined when there was one already (the door says "already checked in"), or
   * when the attendee is not a registered attendee of the project.
   */
  async insertActive(db: Db, row: Omit<CheckInRow, "undone_at">): Promise<CheckInRow | undefined> {
    const { id, project_id, attendee_id, checked_in_at, by_user_id, by_app_id } = row;
    return (
      await insertUnlessActive(db, id, checked_in_at, by_user_id, by_app_id, project_id, attendee_id)
    )[0];
  },

  /** Marks the attendee's active check-in undone at `at`; returns it, or undefined when there was none. */
  async undoActive(
    db: Db,
    projectId: string,
    attendeeId: string,
    at: string,
  ): Promise<CheckInRow | undefined> {
    return (await undoActiveOf(db, at, projectId, attendeeId))[0];
  },

  /**
   * Per ticket type of the project: registered attendees and how many of them are checked in now.
   * Two grouped reads over the (project_id, ticket_type_id, status, …) index and the active check-ins.
   */
  async doorCounts(
    db: Db,
    projectId: string,
  ): Promise<{ ticketTypeId: string; expected: number; checkedIn: number }[]> {
    const expected = await db
      .selectFrom("attendees")
      .select((eb) => ["ticket_type_id", eb.fn.countAll().as("n")])
      .where("project_id", "=", projectId)
      .where("status", "=", "REGISTERED")
      .groupBy("ticket_type_id")
      .execute();
    const arrived = await db
      .selectFrom("check_ins")
      .innerJoin("attendees", "attendees.id", "check_ins.attendee_id")
      .select((eb) => ["attendees.ticket_type_id", eb.fn.countAll().as("n")])
      .where("check_ins.project_id", "=", projectId)
      .where("check_ins.undone_at", "is", null)
      .groupBy("attendees.ticket_type_id")
      .execute();
    const inside = new Map(arrived.map((r) => [r.ticket_type_id, Number(r.n)]));
    return expected.map((r) => ({
      ticketTypeId: r.ticket_type_id,
      expected: Number(r.n),
      checkedIn: inside.get(r.ticket_type_id) ?? 0,
    }));
  },
};
