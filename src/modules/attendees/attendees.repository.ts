import { type Selectable, SqliteAdapter, sql } from "kysely";
import { type Db, reusableQuery } from "../../db/database.js";
import {
  type Columns,
  columnsToRead,
  everyColumn,
  idList,
  inIdList,
  shapedQuery,
} from "../../db/projection.js";
import type { AttendeeStatus, AttendeesTable } from "../../db/schema.js";
import {
  applyKeyset,
  keysetSpec,
  keysetValues,
  type PageWindow,
  slotWindow,
} from "../../shared/pagination.js";
import { searchMatches } from "./attendees-search.repository.js";

export type AttendeeRow = Selectable<AttendeesTable>;

/** Which attendees a list shows. */
export interface AttendeeQuery {
  /** Lower-cased text (3 characters or more) to find in the name, the email or the company. */
  search?: string | undefined;
  status?: AttendeeStatus | undefined;
  ticketTypeId?: string | undefined;
  /** true: only attendees with an active check-in; false: only those without. */
  checkedIn?: boolean | undefined;
}

/** The orders a list can be read in; each is a keyset on (column, id) served by an index. */
const attendeeSorts = { registered: "registered_at", name: "name" } as const;
export type AttendeeSort = keyof typeof attendeeSorts;

const attendeeColumns = everyColumn<AttendeeRow>()([
  "id",
  "project_id",
  "ticket_type_id",
  "name",
  "email",
  "email_normalized",
  "company",
  "status",
  "registered_at",
  "cancelled_at",
  "updated_at",
  "ticket_code",
  "order_id",
  "held_until",
  "language",
]);

/** An attendee with what an export adds: its ticket type's name and its active check-in time. */
export type AttendeeExportRow = AttendeeRow & { ticket_type_name: string; checked_in_at: string | null };

function attendeesQuery(db: Db, projectId: string, query: AttendeeQuery) {
  // With a search, SQLite must start from the (bounded) matches: given the choice it walked the
  // project's 200,000 index entries probing each against them. `+column` hides a column's indexes.
  const fromMatches = query.search !== undefined && db.getExecutor().adapter instanceof SqliteAdapter;
  const equals = (column: "project_id" | "status" | "ticket_type_id", value: string) =>
    fromMatches
      ? sql<boolean>`+${sql.ref(`attendees.${column}`)} = ${value}`
      : sql<boolean>`${sql.ref(`attendees.${column}`)} = ${value}`;
  let q = db.selectFrom("attendees").where(equals("project_id", projectId));
  if (query.status !== undefined) q = q.where(equals("status", query.status));
  if (query.ticketTypeId !== undefined) q = q.where(equals("ticket_type_id", query.ticketTypeId));
  if (query.search !== undefined) q = q.where(searchMatches(db, projectId, query.search));
  if (query.checkedIn !== undefined) {
    const active = sql<boolean>`exists (select 1 from check_ins where check_ins.attendee_id = attendees.id and check_ins.undone_at is null)`;
    q = q.where(query.checkedIn ? active : sql<boolean>`not ${active}`);
  }
  return q;
}

// The attendee page without a search, built and compiled once per shape (db/projection.ts); a
// search's statement depends on its words and is built for each request.
const attendeePages = shapedQuery(
  (
    db,
    spec: {
      columns: readonly (typeof attendeeColumns)[number][];
      status: boolean;
      ticketType: boolean;
      checkedIn: boolean | null;
      sort: AttendeeSort;
    } & ReturnType<typeof keysetSpec>,
    values,
  ) => {
    const query: AttendeeQuery = {
      status: spec.status ? (values.status as AttendeeStatus) : undefined,
      ticketTypeId: spec.ticketType ? (values.ticketTypeId as string) : undefined,
      checkedIn: spec.checkedIn ?? undefined,
    };
    const q = attendeesQuery(db, values.projectId as string, query).select(
      spec.columns.map((c) => `attendees.${c}` as const),
    );
    const sortColumn = `attendees.${attendeeSorts[spec.sort]}`;
    return applyKeyset(q, slotWindow(spec, values), sortColumn, "attendees.id", values.fetch);
  },
);

// Every check-in and undo locks its attendee: compiled once per database (see reusableQuery). The
// columns are named, not `*`, so that PostgreSQL keeps it prepared (see nameStatement).
const lockedAttendee = reusableQuery(
  (db, projectId: string, id: string) => {
    const read = db
      .selectFrom("attendees")
      .select(attendeeColumns)
      .where("project_id", "=", projectId)
      .where("id", "=", id);
    return db.getExecutor().adapter instanceof SqliteAdapter ? read : read.forUpdate();
  },
  ["", ""] as const,
);

// Where a check-in finds the attendee's project before authorizing it: only the two columns that
// needs, compiled once (building the query was as costly as running it; `*` decoded every column).
const projectOfAttendee = reusableQuery(
  (db, id: string) => db.selectFrom("attendees").select(["id", "project_id"]).where("id", "=", id),
  [""] as const,
);

/** SQL for attendees; always scoped by project or by ids the caller already authorized. */
export const attendeesRepository = {
  /** A page of attendees with `columns` (see Columns) and always id, project_id and the sort column. */
  list(
    db: Db,
    projectId: string,
    query: AttendeeQuery,
    window: PageWindow,
    sort: AttendeeSort,
    columns: Columns,
  ): Promise<AttendeeRow[]> {
    const read = columnsToRead(attendeeColumns, ["id", "project_id", attendeeSorts[sort]], columns);
    if (query.search === undefined) {
      const spec = {
        columns: read,
        status: query.status !== undefined,
        ticketType: query.ticketTypeId !== undefined,
        checkedIn: query.checkedIn ?? null,
        sort,
        ...keysetSpec(window),
      };
      const values = {
        projectId,
        status: query.status,
        ticketTypeId: query.ticketTypeId,
        ...keysetValues(window),
      };
      return attendeePages(db, spec, values) as Promise<AttendeeRow[]>;
    }
    const q = attendeesQuery(db, projectId, query).select(read.map((c) => `attendees.${c}` as const));
    return applyKeyset(q, window, `attendees.${attendeeSorts[sort]}`, "attendees.id").execute();
  },

  /** How many attendees of the list come before the sort key (for "21–40 of 312"). */
  async countBefore(
    db: Db,
    projectId: string,
    query: AttendeeQuery,
    sort: AttendeeSort,
    key: readonly [string, string],
  ): Promise<number> {
    const column = sql.ref(`attendees.${attendeeSorts[sort]}`);
    const row = await attendeesQuery(db, projectId, query)
      .where(sql<boolean>`(${column}, attendees.id) < (${key[0]}, ${key[1]})`)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * One page of an export, in registration order after `after`, with each attendee's ticket type
   * name and active check-in. Three index-served statements: joined into the paged query, PostgreSQL
   * sorted the whole filter for every page (143 s for 200,000 attendees, bench/attendees-bulk.ts).
   */
  async exportPage(
    db: Db,
    projectId: string,
    query: AttendeeQuery,
    after: readonly [string, string] | undefined,
    limit: number,
  ): Promise<AttendeeExportRow[]> {
    let q = attendeesQuery(db, projectId, query).selectAll("attendees");
    if (after)
      q = q.where(sql<boolean>`(attendees.registered_at, attendees.id) > (${after[0]}, ${after[1]})`);
    const rows = await q.orderBy("attendees.registered_at").orderBy("attendees.id").limit(limit).execute();
    if (rows.length === 0) return [];
    const types = await db
      .selectFrom("ticket_types")
      .select(["id", "name"])
      .where("project_id", "=", projectId)
      .execute();
    const checkIns = await db
      .selectFrom("check_ins")
      .select(["attendee_id", "checked_in_at"])
      .where(
        "attendee_id",
        "in",
        rows.map((r) => r.id),
      )
      .where("undone_at", "is", null)
      .execute();
    const typeNames = new Map(types.map((t) => [t.id, t.name]));
    const checkedIn = new Map(checkIns.map((c) => [c.attendee_id, c.checked_in_at]));
    return rows.map((row) => ({
      ...row,
      ticket_type_name: typeNames.get(row.ticket_type_id) ?? "",
      checked_in_at: checkedIn.get(row.id) ?? null,
    }));
  },

  /** Which of the lower-cased emails already hold an active registration in the project. */
  async registeredEmails(
    db: Db,
    projectId: string,
    emailsNormalized: readonly string[],
  ): Promise<Set<string>> {
    if (emailsNormalized.length === 0) return new Set();
    const rows = await db
      .selectFrom("attendees")
      .select("email_normalized")
      .where("project_id", "=", projectId)
      .where("status", "=", "REGISTERED")
      .where("email_normalized", "in", [...emailsNormalized])
      .execute();
    return new Set(rows.map((r) => r.email_normalized));
  },

  /**
   * Inserts many registrations in one statement, skipping each whose email already has an active
   * one (the same partial unique index as `insertRegistered`). Returns the ids inserted.
   */
  async insertManyRegistered(db: Db, rows: readonly AttendeeRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await db
      .insertInto("attendees")
      .values([...rows])
      .onConflict((oc) =>
        oc
          .columns(["project_id", "email_normalized"])
          .where("status", "=", sql.lit("REGISTERED"))
          .doNothing(),
      )
      .returning("id")
      .execute();
    return new Set(inserted.map((r) => r.id));
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

  /** Unscoped lookup of many ids in one statement (`nodes(ids)`, webhook payloads): as `locate`. */
  locateMany(db: Db, ids: readonly string[]): Promise<AttendeeRow[]> {
    return db
      .selectFrom("attendees")
      .selectAll()
      .where(inIdList(db, "id", idList(db, ids)))
      .execute();
  },

  /** Unscoped: the project holding an attendee id; the caller must resolve the project's access. */
  async projectOf(db: Db, id: string): Promise<{ id: string; project_id: string } | undefined> {
    return (await projectOfAttendee(db, id))[0];
  },

  /** Unscoped lookup by ticket code (unique across projects): the caller compares the project. */
  locateByTicketCode(db: Db, ticketCode: string): Promise<AttendeeRow | undefined> {
    return db.selectFrom("attendees").selectAll().where("ticket_code", "=", ticketCode).executeTakeFirst();
  },

  /**
   * Reads an attendee and write-locks the row until the transaction ends, so a check-in and a
   * cancellation of the same attendee run one after the other. PostgreSQL: FOR UPDATE. SQLite has
   * no row locks: its transactions take the database's write lock when they begin (database.ts),
   * so a plain read is already ordered. (A no-op UPDATE, the portable lock, rewrote the row and its
   * status index on every check-in: pages to write and, on PostgreSQL, a dead row version.)
   */
  async lock(db: Db, projectId: string, id: string): Promise<AttendeeRow | undefined> {
    return (await lockedAttendee(db, projectId, id))[0];
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

  /** The tickets of an order (attendees carrying its id), in the order they were bought. */
  ofOrder(db: Db, projectId: string, orderId: string): Promise<AttendeeRow[]> {
    const q = db.selectFrom("attendees").selectAll().where("project_id", "=", projectId);
    return q.where("order_id", "=", orderId).orderBy("registered_at").orderBy("id").execute();
  },

  /** Ends the hold of an order's active tickets: their seats stay taken without a time limit. */
  async keepOrderTickets(db: Db, projectId: string, orderId: string, at: string): Promise<void> {
    await db
      .updateTable("attendees")
      .set({ held_until: null, updated_at: at })
      .where("project_id", "=", projectId)
      .where("order_id", "=", orderId)
      .where("status", "=", "REGISTERED")
      .execute();
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
