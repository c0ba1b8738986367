import type { Insertable } from "kysely";
import type { Db, Tx } from "../../db/database.js";
import type {
  AttendeesTable,
  CheckInsTable,
  RoomsTable,
  SessionSpeakersTable,
  SessionsTable,
  SpeakersTable,
  TicketTypesTable,
  TracksTable,
} from "../../db/schema.js";
import type { DemoDataset } from "./demo.generator.js";

// Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535. Large multi-row inserts
// are what makes 200,000 attendees take seconds rather than minutes.
const maxParameters = 30_000;

// One transaction per table: each table lands whole or not at all, and the engine writes its
// journal once per table instead of once per statement.
async function insertInBatches<R extends object>(
  db: Db,
  rows: readonly R[],
  insert: (trx: Tx, batch: R[]) => Promise<unknown>,
): Promise<void> {
  if (!rows[0]) return;
  // Bare, not ProjectChanges.write: the demo seeder fills a new database before anything serves or caches it.
  await db.transaction().execute((trx) => insertBatches(trx, rows, insert));
}

/** Inserts `rows` in multi-row statements within `trx`. */
async function insertBatches<R extends object>(
  trx: Tx,
  rows: readonly R[],
  insert: (trx: Tx, batch: R[]) => Promise<unknown>,
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const size = Math.max(1, Math.floor(maxParameters / Object.keys(first).length));
  for (let i = 0; i < rows.length; i += size) await insert(trx, rows.slice(i, i + size));
}

/** Bulk SQL for the demo generator: batched multi-row inserts, one transaction per table. */
export const demoRepository = {
  insertTracks: (db: Db, rows: Insertable<TracksTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("tracks").values(batch).execute()),
  insertRooms: (db: Db, rows: Insertable<RoomsTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("rooms").values(batch).execute()),
  insertSpeakers: (db: Db, rows: Insertable<SpeakersTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("speakers").values(batch).execute()),
  insertSessions: (db: Db, rows: Insertable<SessionsTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("sessions").values(batch).execute()),
  insertSessionSpeakers: (db: Db, rows: Insertable<SessionSpeakersTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("session_speakers").values(batch).execute()),
  insertTicketTypes: (db: Db, rows: Insertable<TicketTypesTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("ticket_types").values(batch).execute()),
  insertAttendees: (db: Db, rows: Insertable<AttendeesTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("attendees").values(batch).execute()),
  insertCheckIns: (db: Db, rows: Insertable<CheckInsTable>[]) =>
    insertInBatches(db, rows, (trx, batch) => trx.insertInto("check_ins").values(batch).execute()),

  /**
   * Inserts a whole conference within `trx` (a test project's reset, in its ProjectChanges write),
   * parents before children.
   */
  async insertAll(trx: Tx, data: DemoDataset): Promise<void> {
    await insertBatches(trx, data.tracks, (t, batch) => t.insertInto("tracks").values(batch).execute());
    await insertBatches(trx, data.rooms, (t, batch) => t.insertInto("rooms").values(batch).execute());
    await insertBatches(trx, data.speakers, (t, batch) => t.insertInto("speakers").values(batch).execute());
    await insertBatches(trx, data.sessions, (t, batch) => t.insertInto("sessions").values(batch).execute());
    await insertBatches(trx, data.sessionSpeakers, (t, batch) =>
      t.insertInto("session_speakers").values(batch).execute(),
    );
    await insertBatches(trx, data.ticketTypes, (t, batch) =>
      t.insertInto("ticket_types").values(batch).execute(),
    );
    await insertBatches(trx, data.attendees, (t, batch) => t.insertInto("attendees").values(batch).execute());
    await insertBatches(trx, data.checkIns, (t, batch) => t.insertInto("check_ins").values(batch).execute());
  },

  /**
   * Deletes a project's event data, children before parents (attendees take their check-ins, mails
   * and manage links with them; orders their lines; sessions their speakers), and leaves the
   * project, its members, apps, links and webhooks as they are: a test project's reset.
   */
  async deleteEventData(trx: Tx, projectId: string): Promise<void> {
    await trx.deleteFrom("attendees").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("orders").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("attendee_imports").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("sessions").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("speakers").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("tracks").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("rooms").where("project_id", "=", projectId).execute();
    await trx.deleteFrom("ticket_types").where("project_id", "=", projectId).execute();
  },
};
