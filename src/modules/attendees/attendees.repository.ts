import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { AttendeeStatus, AttendeesTable } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";

export type AttendeeRow = Selectable<AttendeesTable>;

/** Which attendees a list shows. */
export interface AttendeeQuery {
  /** Lower-cased text to find in the name or the email. */
  search?: string | undefined;
  status?: AttendeeStatus | undefined;
  ticketTypeId?: string | undefined;
}

// LIKE treats % and _ as wildcards; a search for "50%" must find the text "50%".
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function attendeesQuery(db: Db, projectId: string, query: AttendeeQuery) {
  let q = db.selectFrom("attendees").where("project_id", "=", projectId);
  if (query.status !== undefined) q = q.where("status", "=", query.status);
  if (query.ticketTypeId !== undefined) q = q.where("ticket_type_id", "=", query.ticketTypeId);
  if (query.search !== undefined) {
    const pattern = likePattern(query.search);
    // lower() on both sides: LIKE is case-insensitive on SQLite but not on PostgreSQL.
    q = q.where(
      sql<boolean>`(lower(${sql.ref("name")}) like ${pattern} escape '\\' or ${sql.ref("email_normalized")} like ${pattern} escape '\\')`,
    );
  }
  return q;
}

/** SQL for attendees; always scoped by project or by ids the caller already authorized. */
export const attendeesRepository = {
  list(db: Db, projectId: string, query: AttendeeQuery, window: PageWindow): Promise<AttendeeRow[]> {
    const q = attendeesQuery(db, projectId, query).selectAll();
    return applyKeyset(q, window, "registered_at", "id").execute();
  },

  async count(db: Db, projectId: string, query: AttendeeQuery): Promise<number> {
    const row = await attendeesQuery(db, projectId, query)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  findById(db: Db, projectId: string, id: string): Promise<AttendeeRow | undefined> {
    return db
      .selectFrom("attendees")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locate(db: Db, id: string): Promise<AttendeeRow | undefined> {
    return db.selectFrom("attendees").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /**
   * Reads an attendee and write-locks the row until the transaction ends, so a check-in and a
   * cancellation of the same attendee run one after the other. A no-op UPDATE locks on both engines.
   */
  lock(db: Db, projectId: string, id: string): Promise<AttendeeRow | undefined> {
    return db
      .updateTable("attendees")
      .set((eb) => ({ status: eb.ref("status") }))
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
  },

  /** The active registration of an email in the project, if any. */
  findRegisteredByEmail(
    db: Db,
    projectId: string,
    emailNormalized: string,
  ): Promise<AttendeeRow | undefined> {
    return db
      .selectFrom("attendees")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("email_normalized", "=", emailNormalized)
      .where("status", "=", "REGISTERED")
      .executeTakeFirst();
  },

  /**
   * Inserts a registration unless the email already has an active one in the project (the partial
   * unique index decides, also between racing transactions). Returns whether the row was inserted.
   */
  async insertRegistered(db: Db, row: AttendeeRow): Promise<boolean> {
    const inserted = await db
      .insertInto("attendees")
      .values(row)
      .onConflict((oc) =>
        // The predicate is written as a literal: both engines match it against the partial index's
        // own WHERE to infer the arbiter index, which a bound parameter would not satisfy.
        oc
          .columns(["project_id", "email_normalized"])
          .where("status", "=", sql.lit("REGISTERED"))
          .doNothing(),
      )
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  async update(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Omit<AttendeeRow, "id" | "project_id" | "registered_at">>,
  ): Promise<void> {
    await db
      .updateTable("attendees")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },
};
