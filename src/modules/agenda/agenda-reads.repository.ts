import { sql } from "kysely";
import type { Db } from "../../db/database.js";
import {
  type Columns,
  columnsToRead,
  everyColumn,
  type IdList,
  idList,
  inIdList,
  projectedQuery,
  shapedQuery,
} from "../../db/projection.js";
import {
  applyKeyset,
  keysetSpec,
  keysetValues,
  type PageWindow,
  slotWindow,
} from "../../shared/pagination.js";
import type { RoomRow, SessionQuery, SessionRow, SpeakerRow, TrackRow } from "./agenda-rows.js";

// The agenda's reads of every API miss, each built and compiled once per shape: the session page
// and the loaders' statements. Used through agendaRepository only.

/** Sessions of the project that `query` selects (no columns yet); the page and the count share it. */
export function sessionsQuery(db: Db, projectId: string, query: SessionQuery) {
  let q = db.selectFrom("sessions").where("project_id", "=", projectId);
  // An empty status list asks for nothing; `in ()` is not valid SQL, so say so explicitly.
  q =
    query.statuses.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where("status", "in", [...query.statuses]);
  if (query.trackId !== undefined) q = q.where("track_id", "=", query.trackId);
  if (query.roomId !== undefined) q = q.where("room_id", "=", query.roomId);
  return q;
}

const sessionColumns = everyColumn<SessionRow>()([
  "id",
  "project_id",
  "title",
  "description",
  "starts_at",
  "ends_at",
  "room_id",
  "track_id",
  "capacity",
  "status",
  "created_at",
  "updated_at",
]);
// What the services read from every session they present: the key, the project, the sort value.
const sessionKey = ["id", "project_id", "starts_at"] as const;
const speakerColumns = everyColumn<SpeakerRow>()([
  "id",
  "project_id",
  "name",
  "bio",
  "company",
  "job_title",
  "photo_url",
  "links",
  "created_at",
  "updated_at",
]);
const trackColumns = everyColumn<TrackRow>()(["id", "project_id", "name", "color", "created_at"]);
const roomColumns = everyColumn<RoomRow>()(["id", "project_id", "name", "capacity", "created_at"]);

// The loaders' statements: one per column list, whatever the number of ids (see projectedQuery).
// No key columns of their own: a page's speakers are grouped by session_id, and the Speaker fields
// that need the key declare it (`id`, `sessions`): two 36-character keys per speaker were much of
// this statement's work.
const speakersWithSessionIds = projectedQuery(
  speakerColumns,
  [],
  (db, columns, ids: IdList) =>
    db
      .selectFrom("session_speakers")
      .innerJoin("speakers", "speakers.id", "session_speakers.speaker_id")
      .select(columns.map((c) => `speakers.${c}` as const))
      .select("session_speakers.session_id")
      .where(inIdList(db, "session_speakers.session_id", ids))
      .orderBy("session_speakers.session_id")
      .orderBy("session_speakers.position"),
  [""] as const,
);
const tracksWithIdList = projectedQuery(
  trackColumns,
  [],
  (db, columns, ids: IdList) =>
    db
      .selectFrom("tracks")
      .select(columns)
      .where(inIdList(db, "id", ids)),
  [""] as const,
);
const roomsWithIdList = projectedQuery(
  roomColumns,
  [],
  (db, columns, ids: IdList) =>
    db
      .selectFrom("rooms")
      .select(columns)
      .where(inIdList(db, "id", ids)),
  [""] as const,
);

/** Speakers of the sessions with `columns` (and their session_id), by session and position. */
// Ids per statement when a list is read in parts: one SQLite statement holds the event loop from
// start to end, and the event site's programme asks for the speakers of 1,000 sessions (38 ms).
const idsPerStatement = 200;

/** The speakers of sessions, with the session each speaks in; a long list in statements of 200 ids. */
export async function speakersOfSessions(db: Db, sessionIds: readonly string[], columns: Columns) {
  type Row = SpeakerRow & { session_id: string };
  const read = async (ids: readonly string[]) =>
    (await speakersWithSessionIds(db, columns, idList(db, ids))) as Row[];
  if (sessionIds.length <= idsPerStatement) return read(sessionIds);
  const rows: Row[] = [];
  for (let i = 0; i < sessionIds.length; i += idsPerStatement) {
    rows.push(...(await read(sessionIds.slice(i, i + idsPerStatement))));
  }
  return rows;
}

/** Tracks by id, one statement for any number of ids. */
export const tracksWithIds = (db: Db, ids: readonly string[]) =>
  tracksWithIdList(db, undefined, idList(db, ids));

/** Rooms by id, one statement for any number of ids. */
export const roomsWithIds = (db: Db, ids: readonly string[]) =>
  roomsWithIdList(db, undefined, idList(db, ids));

const sessionPages = shapedQuery(
  (
    db,
    spec: { columns: readonly string[]; statuses: number; track: boolean; room: boolean } & ReturnType<
      typeof keysetSpec
    >,
    values,
  ) => {
    const query: SessionQuery = {
      statuses: Array.from(
        { length: spec.statuses },
        (_, i) => values[`status${i}`] as SessionQuery["statuses"][0],
      ),
      trackId: spec.track ? (values.trackId as string) : undefined,
      roomId: spec.room ? (values.roomId as string) : undefined,
    };
    const q = sessionsQuery(db, values.projectId as string, query).select(
      spec.columns as (typeof sessionColumns)[number][],
    );
    return applyKeyset(q, slotWindow(spec, values), "starts_at", "id", values.fetch);
  },
);

/** A page of sessions with `columns` (see Columns) and always id, project_id and starts_at. */
export function sessionPage(
  db: Db,
  projectId: string,
  query: SessionQuery,
  window: PageWindow,
  columns: Columns,
): Promise<SessionRow[]> {
  const spec = {
    columns: columnsToRead(sessionColumns, sessionKey, columns),
    statuses: query.statuses.length,
    track: query.trackId !== undefined,
    room: query.roomId !== undefined,
    ...keysetSpec(window),
  };
  const statuses = Object.fromEntries(query.statuses.map((status, i) => [`status${i}`, status]));
  const values = {
    projectId,
    trackId: query.trackId,
    roomId: query.roomId,
    ...statuses,
    ...keysetValues(window),
  };
  return sessionPages(db, spec, values) as Promise<SessionRow[]>;
}
