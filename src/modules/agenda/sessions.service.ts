import { z } from "zod";
import type { Db } from "../../db/database.js";
import type { Columns } from "../../db/projection.js";
import type { SessionStatus } from "../../db/schema.js";
import { badInput, type FieldError } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  dateTime,
  idText,
  notNull,
  optionalMultilineText,
  parseInput,
  requiredText,
} from "../../shared/validation.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, sessionVisible } from "../access/policy.js";
import { createRow, patchFrom, type RowWriter, resolveRowAccess } from "../access/row-access.js";
import {
  capacity,
  type DeleteInput,
  type Found,
  presentSession,
  presentSpeaker,
  rowId,
  type Session,
  type Speaker,
} from "./agenda.model.js";
import { agendaRepository as repo } from "./agenda.repository.js";
import { type SessionQuery, type SessionRow, sessionFieldColumns } from "./agenda-rows.js";
import { type AgendaTable, deleteAgendaRow, updateAgendaRow } from "./agenda-writes.js";

const sessionStatus = z.enum(["DRAFT", "PUBLISHED", "CANCELLED"]);
const uniqueIds = z
  .array(rowId)
  .max(50, "must list at most 50 speakers")
  .refine((ids) => new Set(ids).size === ids.length, "must not list a speaker twice");

const sessionFields = {
  title: requiredText(300),
  description: optionalMultilineText(20_000),
  startsAt: dateTime,
  endsAt: dateTime,
  roomId: rowId.nullish(),
  trackId: rowId.nullish(),
  // null clears the list, like null clears any other optional field.
  speakerIds: uniqueIds.nullish().transform((ids) => ids ?? []),
  capacity: capacity.nullish(),
  status: sessionStatus,
};
const createSessionInput = z.object({
  projectId: idText,
  ...sessionFields,
  status: sessionStatus.nullish().transform((status) => status ?? "DRAFT"),
});
const updateSessionInput = z
  .object({
    id: rowId,
    ...sessionFields,
    title: notNull(sessionFields.title),
    startsAt: notNull(sessionFields.startsAt),
    endsAt: notNull(sessionFields.endsAt),
    status: notNull(sessionFields.status),
  })
  .partial({
    title: true,
    description: true,
    startsAt: true,
    endsAt: true,
    roomId: true,
    trackId: true,
    speakerIds: true,
    capacity: true,
    status: true,
  });
const sessionFilter = z.object({
  // Filters arrive from GraphQL arguments, where an omitted one may be null.
  statuses: z.array(sessionStatus).nullish(),
  trackId: idText.nullish(),
  roomId: idText.nullish(),
});

/** Input of `createSession`. */
export type CreateSessionInput = z.input<typeof createSessionInput>;
/** Input of `updateSession`; omitted fields stay, null clears, `speakerIds` replaces the list. */
export type UpdateSessionInput = z.input<typeof updateSessionInput>;
/** Which sessions a list shows. */
export type SessionFilter = z.input<typeof sessionFilter>;

function checkTimes(startsAt: string, endsAt: string): void {
  if (endsAt <= startsAt) throw badInput([{ field: ["endsAt"], message: "must be after startsAt" }]);
}

function sessionQueryFor(access: ProjectAccess, filter: SessionFilter): SessionQuery {
  const data = parseInput(sessionFilter, filter);
  const statuses = data.statuses ?? ["PUBLISHED"];
  // Drafts and cancelled sessions are organizer data: asking for them needs agenda:read.
  if (statuses.some((s) => s !== "PUBLISHED")) assertPermission(access, "agenda:read");
  return { statuses, trackId: data.trackId ?? undefined, roomId: data.roomId ?? undefined };
}

function groupBy<R, T>(
  keys: readonly string[],
  rows: R[],
  keyOf: (row: R) => string,
  present: (row: R) => T,
) {
  const map = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) map.get(keyOf(row))?.push(present(row));
  return map;
}

/** Field errors for room, track and speaker ids that are not rows of this project. */
async function checkReferences(
  trx: Db,
  projectId: string,
  refs: { roomId?: string | null; trackId?: string | null; speakerIds?: readonly string[] },
): Promise<void> {
  const errors: FieldError[] = [];
  if (refs.roomId && !(await repo.findRoom(trx, projectId, refs.roomId))) {
    errors.push({ field: ["roomId"], message: "room not found in this project" });
  }
  if (refs.trackId && !(await repo.findTrack(trx, projectId, refs.trackId))) {
    errors.push({ field: ["trackId"], message: "track not found in this project" });
  }
  if (refs.speakerIds && refs.speakerIds.length > 0) {
    const found = await repo.existingSpeakerIds(trx, projectId, refs.speakerIds);
    const missing = refs.speakerIds.filter((s) => !found.has(s));
    if (missing.length > 0) {
      errors.push({
        field: ["speakerIds"],
        message: `speaker ${missing.join(", ")} not found in this project`,
      });
    }
  }
  if (errors.length > 0) throw badInput(errors);
}

const sessionTable: AgendaTable<SessionRow, Session> = {
  what: "Session",
  visible: sessionVisible,
  find: repo.findSession,
  locate: repo.locateSession,
  remove: repo.deleteSession,
  present: presentSession,
};

/** Sessions of the agenda with their speakers: published ones are public, the rest needs agenda:read. */
export function createAgendaSessionsService(writer: RowWriter) {
  const { db } = writer;
  return {
    /**
     * Sessions by start time; published only unless the filter asks for more (needs agenda:read).
     * With `columns`, only those fields are filled (see Columns).
     */
    async listSessions(
      projectAccess: ProjectAccess,
      filter: SessionFilter,
      window: PageWindow,
      columns?: Columns,
    ): Promise<Page<Session>> {
      const query = sessionQueryFor(projectAccess, filter);
      const rows = await repo.listSessions(db, projectAccess.projectId, query, window, columns);
      return toPage(rows.map(presentSession), window, (s) => [s.startsAt, s.id]);
    },

    /** The distinct start times of the draft and published sessions (needs agenda:read). */
    async sessionStarts(projectAccess: ProjectAccess): Promise<string[]> {
      assertPermission(projectAccess, "agenda:read");
      return repo.sessionStarts(db, projectAccess.projectId, ["DRAFT", "PUBLISHED"]);
    },

    /**
     * The draft and published sessions running at some time in [`from`, `to`) in `roomIds` (and in
     * no room when `noRoom`), by start time, at most `limit` (needs agenda:read).
     */
    async sessionsOverlapping(
      projectAccess: ProjectAccess,
      where: { from: string; to: string; roomIds: readonly string[]; noRoom: boolean },
      limit: number,
    ): Promise<Session[]> {
      assertPermission(projectAccess, "agenda:read");
      const rows = await repo.sessionsOverlapping(
        db,
        projectAccess.projectId,
        ["DRAFT", "PUBLISHED"],
        where,
        limit,
      );
      return rows.map(presentSession);
    },

    /** Total of `listSessions` for the same filter. */
    async countSessions(projectAccess: ProjectAccess, filter: SessionFilter): Promise<number> {
      return repo.countSessions(db, projectAccess.projectId, sessionQueryFor(projectAccess, filter));
    },

    // Batch loaders: the ids come from parents the caller was already allowed to read.

    /**
     * Each session's speakers in position order; every asked id is a key (empty list when none).
     * With `columns`, only those fields are filled (see Columns).
     */
    async speakersBySessionIds(
      sessionIds: readonly string[],
      columns?: Columns,
    ): Promise<Map<string, Speaker[]>> {
      if (sessionIds.length === 0) return new Map();
      const rows = await repo.speakersBySessionIds(db, sessionIds, columns);
      return groupBy(sessionIds, rows, (r) => r.session_id, presentSpeaker);
    },

    /** Each speaker's sessions with one of `statuses`, by start time; every asked id is a key. */
    async sessionsBySpeakerIds(
      speakerIds: readonly string[],
      options: { statuses: readonly SessionStatus[] },
    ): Promise<Map<string, Session[]>> {
      if (speakerIds.length === 0) return new Map();
      const rows = await repo.sessionsBySpeakerIds(db, speakerIds, options.statuses);
      return groupBy(speakerIds, rows, (r) => r.speaker_id, presentSession);
    },

    /** A session the actor may see (published, or any with agenda:read). */
    async findSession(actor: Actor, sessionId: string): Promise<Found<Session> | undefined> {
      const row = await repo.locateSession(db, sessionId);
      const found = await resolveRowAccess(writer.access, actor, row, sessionVisible);
      return row && found ? { item: presentSession(row), access: found } : undefined;
    },

    /** Creates a session (DRAFT unless told) with its speakers in order; needs agenda:write. */
    async createSession(actor: Actor, input: CreateSessionInput): Promise<Session> {
      const { row } = await createRow(
        writer,
        actor,
        input.projectId,
        "agenda:write",
        () => {
          const data = parseInput(createSessionInput, input);
          checkTimes(data.startsAt, data.endsAt);
          const now = nowIso();
          const row: SessionRow = {
            id: newId(),
            project_id: data.projectId,
            title: data.title,
            description: data.description,
            starts_at: data.startsAt,
            ends_at: data.endsAt,
            room_id: data.roomId ?? null,
            track_id: data.trackId ?? null,
            capacity: data.capacity ?? null,
            status: data.status,
            created_at: now,
            updated_at: now,
          };
          return { row, data };
        },
        async (trx, { row, data }) => {
          await checkReferences(trx, row.project_id, data);
          await repo.insertSession(trx, row);
          await repo.replaceSessionSpeakers(trx, row.id, data.speakerIds);
          await writer.changes.event(trx, actor, objectEvent(row.project_id, "Session", row.id, "created"));
        },
      );
      return presentSession(row);
    },

    /** Updates a session; `speakerIds` replaces the list. Needs agenda:write. */
    async updateSession(actor: Actor, input: UpdateSessionInput): Promise<Session> {
      const data = parseInput(updateSessionInput, input);
      return updateAgendaRow(writer, actor, sessionTable, data, async (trx, projectId, row) => {
        checkTimes(data.startsAt ?? row.starts_at, data.endsAt ?? row.ends_at);
        await checkReferences(trx, projectId, data);
        const patch: Partial<SessionRow> = {
          ...patchFrom<typeof data, SessionRow>(data, sessionFieldColumns),
          updated_at: nowIso(),
        };
        await repo.updateSession(trx, projectId, data.id, patch);
        if (data.speakerIds !== undefined) await repo.replaceSessionSpeakers(trx, data.id, data.speakerIds);
      });
    },

    /** Deletes a session (its speakers stay); needs agenda:write. */
    deleteSession: (actor: Actor, input: DeleteInput): Promise<Session> =>
      deleteAgendaRow(writer, actor, sessionTable, input),
  };
}
