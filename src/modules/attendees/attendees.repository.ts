import { type Selectable, SqliteAdapter, sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { AttendeeStatus, AttendeesTable } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";

export type AttendeeRow = Selectable<AttendeesTable>;

/** Which attendees a list shows. */
export interface AttendeeQuery {
  /** Lower-cased text (3 characters or more) to find in the name, the email or the company. */
  search?: string | undefined;
  status?: AttendeeStatus | undefined;
  ticketTypeId?: string | undefined;
}

/**
 * A search looks at no more than this many matching attendees (the first ones the index yields): a
 * term found in every row then reads 2,000 index entries and rows, not the whole table. On the ×100
 * demo (200,000 attendees) 10,000 took ~130 ms per statement, 2,000 about 5 ms.
 */
const maxSearchMatches = 2_000;

// LIKE treats % and _ as wildcards; a search for "50%" must find the text "50%".
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// The attendees of the project whose name, email or company contains `search` (lower-cased), through
// the index made by the 2026-11-24T01-00_search-index migration: the trigram FTS5 table on SQLite,
// the pg_trgm expression index on PostgreSQL (the expression must stay identical to the index's).
// Several words match in any order ("sato ivan" finds "Ivan Sato"): every word of 3 or more
// characters goes to the index; shorter words (which trigrams cannot find) filter those matches.
// Only short words ("li na") search for the whole text as one phrase, as a single word does.
function searchMatches(db: Db, projectId: string, search: string) {
  const words = search.split(/\s+/).filter((w) => w !== "");
  const indexed = words.filter((w) => [...w].length >= 3);
  const terms = indexed.length > 0 ? indexed : [search];
  const short = indexed.length > 0 ? words.filter((w) => [...w].length < 3) : [];
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const found = sqlite ? sqliteMatches(projectId, terms) : postgresMatches(projectId, terms);
  if (short.length === 0) return found;
  const text = sqlite
    ? sql`lower(attendees.name) || char(10) || attendees.email_normalized || char(10) || lower(coalesce(attendees.company, ''))`
    : sql`lower(attendees.name) || chr(10) || attendees.email_normalized || chr(10) || lower(coalesce(attendees.company, ''))`;
  const filters = short.map((w) => sql`${text} like ${likePattern(w)} escape '\\'`);
  return sql<boolean>`(${found} and ${sql.join(filters, sql` and `)})`;
}

function sqliteMatches(projectId: string, terms: string[]) {
  // An FTS5 phrase is literal text (no wildcards); a quote inside it is doubled.
  const phrases = terms.map((t) => `body : "${t.replaceAll('"', '""')}"`).join(" AND ");
  const match = `project_id : "${projectId}" AND ${phrases}`;
  return sql<boolean>`attendees.rowid in (select rowid from attendees_search where attendees_search match ${match} limit ${maxSearchMatches})`;
}

function postgresMatches(projectId: string, terms: string[]) {
  const likes = terms.map(
    (t) =>
      sql`(lower(name) || chr(10) || email_normalized || chr(10) || lower(coalesce(company, ''))) like ${likePattern(t)} escape '\\'`,
  );
  // `= any(array(…))` runs the bounded lookup once (an InitPlan); `in (… limit …)` could not be
  // flattened and was re-run for every row of the project (12 s on 2,000 attendees without stats).
  return sql<boolean>`attendees.id = any(array(select id from attendees where project_id = ${projectId} and ${sql.join(likes, sql` and `)} limit ${maxSearchMatches}))`;
}

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

  /** Unscoped lookup by ticket code (unique across projects): the caller compares the project. */
  locateByTicketCode(db: Db, ticketCode: string): Promise<AttendeeRow | undefined> {
    return db.selectFrom("attendees").selectAll().where("ticket_code", "=", ticketCode).executeTakeFirst();
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
