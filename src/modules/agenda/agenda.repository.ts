import { sql } from "kysely";
import type { Db } from "../../db/database.js";
import type { Columns } from "../../db/projection.js";
import type { SessionStatus } from "../../db/schema.js";
import { applyKeyset, type PageWindow } from "../../shared/pagination.js";
import {
  roomsWithIds,
  sessionPage,
  sessionsQuery,
  speakersOfSessions,
  tracksWithIds,
} from "./agenda-reads.repository.js";
import type { RoomRow, SessionQuery, SessionRow, SpeakerRow, TrackRow } from "./agenda-rows.js";

function speakersQuery(db: Db, projectId: string, publishedOnly: boolean) {
  let q = db.selectFrom("speakers").where("speakers.project_id", "=", projectId);
  if (publishedOnly) {
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("session_speakers")
          .innerJoin("sessions", "sessions.id", "session_speakers.session_id")
          .select(sql<number>`1`.as("one"))
          .whereRef("session_speakers.speaker_id", "=", "speakers.id")
          .where("sessions.status", "=", "PUBLISHED"),
      ),
    );
  }
  return q;
}

/**
 * SQL for tracks, rooms, speakers, sessions and session speakers. Every query names the project
 * (or takes ids the caller already authorized), so a cross-project read cannot be written by accident.
 */
export const agendaRepository = {
  // ---- tracks ----

  listTracks(db: Db, projectId: string, window: PageWindow): Promise<TrackRow[]> {
    const q = db.selectFrom("tracks").selectAll().where("project_id", "=", projectId);
    return applyKeyset(q, window, "name", "id").execute();
  },

  async countTracks(db: Db, projectId: string): Promise<number> {
    const row = await db
      .selectFrom("tracks")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  findTrack(db: Db, projectId: string, id: string): Promise<TrackRow | undefined> {
    return db
      .selectFrom("tracks")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locateTrack(db: Db, id: string): Promise<TrackRow | undefined> {
    return db.selectFrom("tracks").selectAll().where("id", "=", id).executeTakeFirst();
  },

  tracksByIds(db: Db, ids: readonly string[]): Promise<TrackRow[]> {
    return tracksWithIds(db, ids);
  },

  async insertTrack(db: Db, row: TrackRow): Promise<void> {
    await db.insertInto("tracks").values(row).execute();
  },

  async updateTrack(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Pick<TrackRow, "name" | "color">>,
  ): Promise<void> {
    await db
      .updateTable("tracks")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async deleteTrack(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("tracks").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  // ---- rooms ----

  listRooms(db: Db, projectId: string, window: PageWindow): Promise<RoomRow[]> {
    const q = db.selectFrom("rooms").selectAll().where("project_id", "=", projectId);
    return applyKeyset(q, window, "name", "id").execute();
  },

  async countRooms(db: Db, projectId: string): Promise<number> {
    const row = await db
      .selectFrom("rooms")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  findRoom(db: Db, projectId: string, id: string): Promise<RoomRow | undefined> {
    return db
      .selectFrom("rooms")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locateRoom(db: Db, id: string): Promise<RoomRow | undefined> {
    return db.selectFrom("rooms").selectAll().where("id", "=", id).executeTakeFirst();
  },

  roomsByIds(db: Db, ids: readonly string[]): Promise<RoomRow[]> {
    return roomsWithIds(db, ids);
  },

  async insertRoom(db: Db, row: RoomRow): Promise<void> {
    await db.insertInto("rooms").values(row).execute();
  },

  async updateRoom(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Pick<RoomRow, "name" | "capacity">>,
  ): Promise<void> {
    await db
      .updateTable("rooms")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async deleteRoom(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("rooms").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  // ---- speakers ----

  listSpeakers(db: Db, projectId: string, publishedOnly: boolean, window: PageWindow): Promise<SpeakerRow[]> {
    const q = speakersQuery(db, projectId, publishedOnly).selectAll("speakers");
    return applyKeyset(q, window, "speakers.name", "speakers.id").execute();
  },

  async countSpeakers(db: Db, projectId: string, publishedOnly: boolean): Promise<number> {
    const row = await speakersQuery(db, projectId, publishedOnly)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  findSpeaker(db: Db, projectId: string, id: string): Promise<SpeakerRow | undefined> {
    return db
      .selectFrom("speakers")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locateSpeaker(db: Db, id: string): Promise<SpeakerRow | undefined> {
    return db.selectFrom("speakers").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** Whether the speaker is on at least one published session (what the public may see). */
  async speakerIsPublished(db: Db, projectId: string, id: string): Promise<boolean> {
    const row = await speakersQuery(db, projectId, true)
      .select("speakers.id")
      .where("speakers.id", "=", id)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Ids among `ids` that are speakers of this project (to validate a session's speaker list). */
  async existingSpeakerIds(db: Db, projectId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db
      .selectFrom("speakers")
      .select("id")
      .where("project_id", "=", projectId)
      .where("id", "in", [...ids])
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  async insertSpeaker(db: Db, row: SpeakerRow): Promise<void> {
    await db.insertInto("speakers").values(row).execute();
  },

  async updateSpeaker(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Omit<SpeakerRow, "id" | "project_id" | "created_at">>,
  ): Promise<void> {
    await db
      .updateTable("speakers")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async deleteSpeaker(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("speakers").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  /**
   * Speakers of each session, in their position order (one statement for any number of sessions),
   * with `columns` (see Columns; every column when undefined) and each row's session_id.
   */
  speakersBySessionIds(
    db: Db,
    sessionIds: readonly string[],
    columns: Columns,
  ): Promise<(SpeakerRow & { session_id: string })[]> {
    return speakersOfSessions(db, sessionIds, columns);
  },

  // ---- sessions ----

  /** A page of sessions with `columns` (see Columns) and always id, project_id and starts_at. */
  listSessions: sessionPage,

  async countSessions(db: Db, projectId: string, query: SessionQuery): Promise<number> {
    const row = await sessionsQuery(db, projectId, query)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  findSession(db: Db, projectId: string, id: string): Promise<SessionRow | undefined> {
    return db
      .selectFrom("sessions")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /** Unscoped lookup for `node(id)` and by-id mutations: the caller must resolve the row's project access. */
  locateSession(db: Db, id: string): Promise<SessionRow | undefined> {
    return db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** The distinct start times of the project's sessions with one of `statuses` (at most 20,000). */
  async sessionStarts(db: Db, projectId: string, statuses: readonly SessionStatus[]): Promise<string[]> {
    const rows = await sessionsQuery(db, projectId, { statuses })
      .select("starts_at")
      .distinct()
      .orderBy("starts_at")
      .limit(20_000)
      .execute();
    return rows.map((r) => r.starts_at);
  },

  /**
   * Sessions with one of `statuses` running at some time in [`from`, `to`), in `roomIds` or (with
   * `noRoom`) in no room, by start time; at most `limit`.
   */
  sessionsOverlapping(
    db: Db,
    projectId: string,
    statuses: readonly SessionStatus[],
    where: { from: string; to: string; roomIds: readonly string[]; noRoom: boolean },
    limit: number,
  ): Promise<SessionRow[]> {
    return sessionsQuery(db, projectId, { statuses })
      .selectAll()
      .where("starts_at", "<", where.to)
      .where("ends_at", ">", where.from)
      .where((eb) => {
        const inRooms = where.roomIds.length > 0 ? [eb("room_id", "in", [...where.roomIds])] : [];
        return eb.or([...inRooms, ...(where.noRoom ? [eb("room_id", "is", null)] : [])]);
      })
      .orderBy("starts_at")
      .orderBy("id")
      .limit(limit)
      .execute();
  },

  /** Sessions of each speaker with one of `statuses`, by start time (one statement for any number). */
  sessionsBySpeakerIds(
    db: Db,
    speakerIds: readonly string[],
    statuses: readonly SessionStatus[],
  ): Promise<(SessionRow & { speaker_id: string })[]> {
    let q = db
      .selectFrom("session_speakers")
      .innerJoin("sessions", "sessions.id", "session_speakers.session_id")
      .selectAll("sessions")
      .select("session_speakers.speaker_id")
      .where("session_speakers.speaker_id", "in", [...speakerIds]);
    q =
      statuses.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where("sessions.status", "in", [...statuses]);
    return q.orderBy("sessions.starts_at").orderBy("sessions.id").execute();
  },

  async insertSession(db: Db, row: SessionRow): Promise<void> {
    await db.insertInto("sessions").values(row).execute();
  },

  async updateSession(
    db: Db,
    projectId: string,
    id: string,
    changes: Partial<Omit<SessionRow, "id" | "project_id" | "created_at">>,
  ): Promise<void> {
    await db
      .updateTable("sessions")
      .set(changes)
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .execute();
  },

  async deleteSession(db: Db, projectId: string, id: string): Promise<void> {
    await db.deleteFrom("sessions").where("project_id", "=", projectId).where("id", "=", id).execute();
  },

  /** Replaces a session's speakers with `speakerIds`, in that order. */
  async replaceSessionSpeakers(db: Db, sessionId: string, speakerIds: readonly string[]): Promise<void> {
    await db.deleteFrom("session_speakers").where("session_id", "=", sessionId).execute();
    if (speakerIds.length === 0) return;
    await db
      .insertInto("session_speakers")
      .values(
        speakerIds.map((speakerId, position) => ({ session_id: sessionId, speaker_id: speakerId, position })),
      )
      .execute();
  },
};
