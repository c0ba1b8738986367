import { z } from "zod";
import type { Db } from "../../db/database.js";
import type { SessionStatus } from "../../db/schema.js";
import { inTransaction } from "../../db/transaction.js";
import { badInput, type FieldError, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { dateTime, httpUrl, optionalText, parseInput, requiredText } from "../../shared/validation.js";
import { type AccessService, assertPermission, type ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { resolveRowAccess, writeRow } from "../access/row-access.js";
import {
  type RoomRow,
  agendaRepository as repo,
  type SessionQuery,
  type SessionRow,
  type SpeakerRow,
  type TrackRow,
} from "./agenda.repository.js";

export type { SessionStatus } from "../../db/schema.js";

/** A track (a thread of the programme, e.g. "Frontend"). */
export interface Track {
  id: string;
  projectId: string;
  name: string;
  color: string | null;
  createdAt: string;
}

/** A room sessions take place in. */
export interface Room {
  id: string;
  projectId: string;
  name: string;
  capacity: number | null;
  createdAt: string;
}

/** A link on a speaker's profile. */
export interface SpeakerLink {
  label: string;
  url: string;
}

/** A speaker of the event. */
export interface Speaker {
  id: string;
  projectId: string;
  name: string;
  bio: string | null;
  company: string | null;
  jobTitle: string | null;
  photoUrl: string | null;
  links: SpeakerLink[];
  createdAt: string;
  updatedAt: string;
}

/** A session of the agenda; its speakers are loaded separately (`speakersBySessionIds`). */
export interface Session {
  id: string;
  projectId: string;
  title: string;
  description: string | null;
  startsAt: string;
  endsAt: string;
  roomId: string | null;
  trackId: string | null;
  capacity: number | null;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
}

/** A track as it leaves the service. */
function presentTrack(row: TrackRow): Track {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    color: row.color,
    createdAt: row.created_at,
  };
}

/** A room as it leaves the service. */
function presentRoom(row: RoomRow): Room {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    capacity: row.capacity,
    createdAt: row.created_at,
  };
}

/** A speaker as it leaves the service, with the stored JSON links parsed. */
function presentSpeaker(row: SpeakerRow): Speaker {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    bio: row.bio,
    company: row.company,
    jobTitle: row.job_title,
    photoUrl: row.photo_url,
    links: JSON.parse(row.links) as SpeakerLink[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A session as it leaves the service. */
function presentSession(row: SessionRow): Session {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    roomId: row.room_id,
    trackId: row.track_id,
    capacity: row.capacity,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// ---- input schemas ----

const sessionStatus = z.enum(["DRAFT", "PUBLISHED", "CANCELLED"]);
const id = z.string().min(1, "must not be empty");
const capacity = z.number().int("must be a whole number").min(0, "must not be negative").max(1_000_000);
const color = z
  .string()
  .trim()
  .regex(/^#[0-9A-Fa-f]{6}$/, "must be a color in the form #RRGGBB")
  .transform((c) => c.toUpperCase());
const uniqueIds = z
  .array(id)
  .max(50, "must list at most 50 speakers")
  .refine((ids) => new Set(ids).size === ids.length, "must not list a speaker twice");

const trackFields = { name: requiredText(120), color: color.nullish() };
const createTrackInput = z.object({ projectId: z.string(), ...trackFields });
const updateTrackInput = z.object({ id, ...trackFields }).partial({ name: true, color: true });

const roomFields = { name: requiredText(120), capacity: capacity.nullish() };
const createRoomInput = z.object({ projectId: z.string(), ...roomFields });
const updateRoomInput = z.object({ id, ...roomFields }).partial({ name: true, capacity: true });

const speakerFields = {
  name: requiredText(200),
  bio: optionalText(10_000),
  company: optionalText(200),
  jobTitle: optionalText(200),
  photoUrl: httpUrl.nullish(),
  // GraphQL sends null for a list the caller cleared (or left out on create): both mean "none".
  links: z
    .array(z.object({ label: requiredText(100), url: httpUrl }))
    .max(20, "must list at most 20 links")
    .nullish()
    .transform((links) => links ?? []),
};
const createSpeakerInput = z.object({
  projectId: z.string(),
  ...speakerFields,
});
const updateSpeakerInput = z.object({ id, ...speakerFields }).partial({
  name: true,
  bio: true,
  company: true,
  jobTitle: true,
  photoUrl: true,
  links: true,
});

const sessionFields = {
  title: requiredText(300),
  description: optionalText(20_000),
  startsAt: dateTime,
  endsAt: dateTime,
  roomId: id.nullish(),
  trackId: id.nullish(),
  // null clears the list, like null clears any other optional field.
  speakerIds: uniqueIds.nullish().transform((ids) => ids ?? []),
  capacity: capacity.nullish(),
  status: sessionStatus,
};
const createSessionInput = z.object({
  projectId: z.string(),
  ...sessionFields,
  status: sessionStatus.nullish().transform((status) => status ?? "DRAFT"),
});
const updateSessionInput = z.object({ id, ...sessionFields }).partial({
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
const deleteInput = z.object({ id });

const sessionFilter = z.object({
  // Filters arrive from GraphQL arguments, where an omitted one may be null.
  statuses: z.array(sessionStatus).nullish(),
  trackId: z.string().nullish(),
  roomId: z.string().nullish(),
});
const speakerFilter = z.object({ includeUnpublished: z.boolean().nullish() });

export type CreateTrackInput = z.input<typeof createTrackInput>;
export type UpdateTrackInput = z.input<typeof updateTrackInput>;
export type CreateRoomInput = z.input<typeof createRoomInput>;
export type UpdateRoomInput = z.input<typeof updateRoomInput>;
export type CreateSpeakerInput = z.input<typeof createSpeakerInput>;
export type UpdateSpeakerInput = z.input<typeof updateSpeakerInput>;
export type CreateSessionInput = z.input<typeof createSessionInput>;
export type UpdateSessionInput = z.input<typeof updateSessionInput>;
export type DeleteInput = z.input<typeof deleteInput>;
export type SessionFilter = z.input<typeof sessionFilter>;
export type SpeakerFilter = z.input<typeof speakerFilter>;

/** A single lookup: the item and the caller's access to its project (for field-level checks). */
export interface Found<T> {
  item: T;
  access: ProjectAccess;
}

// ---- visibility (the read rules, shared by lists, lookups and by-id writes) ----

const canReadAll = (access: ProjectAccess) => access.permissions.has("agenda:read");
const anyone = () => true;
const sessionVisible = (access: ProjectAccess, row: SessionRow) =>
  row.status === "PUBLISHED" || canReadAll(access);

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

function speakersPublishedOnly(access: ProjectAccess, filter: SpeakerFilter): boolean {
  const data = parseInput(speakerFilter, filter);
  if (data.includeUnpublished) {
    assertPermission(access, "agenda:read");
    return false;
  }
  return true;
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

/** The agenda: tracks, rooms, speakers and sessions, with their public and organizer views. */
export function createAgendaService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };
  const speakerVisible = async (projectAccess: ProjectAccess, row: SpeakerRow) =>
    canReadAll(projectAccess) || (await repo.speakerIsPublished(db, row.project_id, row.id));

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

  return {
    // ---- lists ----

    /** Sessions by start time; published only unless the filter asks for more (needs agenda:read). */
    async listSessions(
      projectAccess: ProjectAccess,
      filter: SessionFilter,
      window: PageWindow,
    ): Promise<Page<Session>> {
      const query = sessionQueryFor(projectAccess, filter);
      const rows = await repo.listSessions(db, projectAccess.projectId, query, window);
      return toPage(rows.map(presentSession), window, (s) => [s.startsAt, s.id]);
    },

    /** Total of `listSessions` for the same filter. */
    async countSessions(projectAccess: ProjectAccess, filter: SessionFilter): Promise<number> {
      return repo.countSessions(db, projectAccess.projectId, sessionQueryFor(projectAccess, filter));
    },

    /** Speakers by name; only those of a published session unless includeUnpublished (agenda:read). */
    async listSpeakers(
      projectAccess: ProjectAccess,
      filter: SpeakerFilter,
      window: PageWindow,
    ): Promise<Page<Speaker>> {
      const publishedOnly = speakersPublishedOnly(projectAccess, filter);
      const rows = await repo.listSpeakers(db, projectAccess.projectId, publishedOnly, window);
      return toPage(rows.map(presentSpeaker), window, (s) => [s.name, s.id]);
    },

    /** Total of `listSpeakers` for the same filter. */
    async countSpeakers(projectAccess: ProjectAccess, filter: SpeakerFilter): Promise<number> {
      return repo.countSpeakers(db, projectAccess.projectId, speakersPublishedOnly(projectAccess, filter));
    },

    /** Tracks by name; public. */
    async listTracks(projectAccess: ProjectAccess, window: PageWindow): Promise<Page<Track>> {
      const rows = await repo.listTracks(db, projectAccess.projectId, window);
      return toPage(rows.map(presentTrack), window, (t) => [t.name, t.id]);
    },

    /** Total number of tracks. */
    async countTracks(projectAccess: ProjectAccess): Promise<number> {
      return repo.countTracks(db, projectAccess.projectId);
    },

    /** Rooms by name; public. */
    async listRooms(projectAccess: ProjectAccess, window: PageWindow): Promise<Page<Room>> {
      const rows = await repo.listRooms(db, projectAccess.projectId, window);
      return toPage(rows.map(presentRoom), window, (r) => [r.name, r.id]);
    },

    /** Total number of rooms. */
    async countRooms(projectAccess: ProjectAccess): Promise<number> {
      return repo.countRooms(db, projectAccess.projectId);
    },

    // ---- batch loaders (ids come from parents the caller was already allowed to read) ----

    /** Rooms by id, one statement for any number of ids. */
    async roomsByIds(ids: readonly string[]): Promise<Map<string, Room>> {
      if (ids.length === 0) return new Map();
      const rows = await repo.roomsByIds(db, ids);
      return new Map(rows.map((r) => [r.id, presentRoom(r)]));
    },

    /** Tracks by id, one statement for any number of ids. */
    async tracksByIds(ids: readonly string[]): Promise<Map<string, Track>> {
      if (ids.length === 0) return new Map();
      const rows = await repo.tracksByIds(db, ids);
      return new Map(rows.map((r) => [r.id, presentTrack(r)]));
    },

    /** Each session's speakers in position order; every asked id is a key (empty list when none). */
    async speakersBySessionIds(sessionIds: readonly string[]): Promise<Map<string, Speaker[]>> {
      if (sessionIds.length === 0) return new Map();
      const rows = await repo.speakersBySessionIds(db, sessionIds);
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

    // ---- single lookups (undefined when missing or not visible) ----

    /** A session the actor may see (published, or any with agenda:read). */
    async findSession(actor: Actor, sessionId: string): Promise<Found<Session> | undefined> {
      const row = await repo.locateSession(db, sessionId);
      const found = await resolveRowAccess(access, actor, row, sessionVisible);
      return row && found ? { item: presentSession(row), access: found } : undefined;
    },

    /** A speaker the actor may see (on a published session, or any with agenda:read). */
    async findSpeaker(actor: Actor, speakerId: string): Promise<Found<Speaker> | undefined> {
      const row = await repo.locateSpeaker(db, speakerId);
      const found = await resolveRowAccess(access, actor, row, speakerVisible);
      return row && found ? { item: presentSpeaker(row), access: found } : undefined;
    },

    /** A track of a project the actor may see. */
    async findTrack(actor: Actor, trackId: string): Promise<Found<Track> | undefined> {
      const row = await repo.locateTrack(db, trackId);
      const found = await resolveRowAccess(access, actor, row, anyone);
      return row && found ? { item: presentTrack(row), access: found } : undefined;
    },

    /** A room of a project the actor may see. */
    async findRoom(actor: Actor, roomId: string): Promise<Found<Room> | undefined> {
      const row = await repo.locateRoom(db, roomId);
      const found = await resolveRowAccess(access, actor, row, anyone);
      return row && found ? { item: presentRoom(row), access: found } : undefined;
    },

    // ---- tracks ----

    /** Creates a track; needs agenda:write. */
    async createTrack(actor: Actor, input: CreateTrackInput): Promise<Track> {
      await access.requirePermission(actor, input.projectId, "agenda:write");
      const data = parseInput(createTrackInput, input);
      const row: TrackRow = {
        id: newId(),
        project_id: data.projectId,
        name: data.name,
        color: data.color ?? null,
        created_at: nowIso(),
      };
      await inTransaction(db, actor, (trx) => repo.insertTrack(trx, row));
      await changes.notify(row.project_id);
      return presentTrack(row);
    },

    /** Renames or recolors a track; needs agenda:write. */
    async updateTrack(actor: Actor, input: UpdateTrackInput): Promise<Track> {
      const data = parseInput(updateTrackInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateTrack(db, data.id),
        "Track",
        "agenda:write",
        anyone,
        async (trx, projectId) => {
          const patch: Partial<TrackRow> = {};
          if (data.name !== undefined) patch.name = data.name;
          if (data.color !== undefined) patch.color = data.color;
          if (Object.keys(patch).length > 0) await repo.updateTrack(trx, projectId, data.id, patch);
          const updated = await repo.findTrack(trx, projectId, data.id);
          if (!updated) throw notFound("Track");
          return presentTrack(updated);
        },
      );
    },

    /** Deletes a track; its sessions stay, without a track. Needs agenda:write. */
    async deleteTrack(actor: Actor, input: DeleteInput): Promise<Track> {
      const data = parseInput(deleteInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateTrack(db, data.id),
        "Track",
        "agenda:write",
        anyone,
        async (trx, projectId) => {
          const row = await repo.findTrack(trx, projectId, data.id);
          if (!row) throw notFound("Track");
          await repo.deleteTrack(trx, projectId, data.id);
          return presentTrack(row);
        },
      );
    },

    // ---- rooms ----

    /** Creates a room; needs agenda:write. */
    async createRoom(actor: Actor, input: CreateRoomInput): Promise<Room> {
      await access.requirePermission(actor, input.projectId, "agenda:write");
      const data = parseInput(createRoomInput, input);
      const row: RoomRow = {
        id: newId(),
        project_id: data.projectId,
        name: data.name,
        capacity: data.capacity ?? null,
        created_at: nowIso(),
      };
      await inTransaction(db, actor, (trx) => repo.insertRoom(trx, row));
      await changes.notify(row.project_id);
      return presentRoom(row);
    },

    /** Renames a room or changes its capacity; needs agenda:write. */
    async updateRoom(actor: Actor, input: UpdateRoomInput): Promise<Room> {
      const data = parseInput(updateRoomInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateRoom(db, data.id),
        "Room",
        "agenda:write",
        anyone,
        async (trx, projectId) => {
          const patch: Partial<RoomRow> = {};
          if (data.name !== undefined) patch.name = data.name;
          if (data.capacity !== undefined) patch.capacity = data.capacity;
          if (Object.keys(patch).length > 0) await repo.updateRoom(trx, projectId, data.id, patch);
          const updated = await repo.findRoom(trx, projectId, data.id);
          if (!updated) throw notFound("Room");
          return presentRoom(updated);
        },
      );
    },

    /** Deletes a room; its sessions stay, without a room. Needs agenda:write. */
    async deleteRoom(actor: Actor, input: DeleteInput): Promise<Room> {
      const data = parseInput(deleteInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateRoom(db, data.id),
        "Room",
        "agenda:write",
        anyone,
        async (trx, projectId) => {
          const row = await repo.findRoom(trx, projectId, data.id);
          if (!row) throw notFound("Room");
          await repo.deleteRoom(trx, projectId, data.id);
          return presentRoom(row);
        },
      );
    },

    // ---- speakers ----

    /** Creates a speaker; needs agenda:write. */
    async createSpeaker(actor: Actor, input: CreateSpeakerInput): Promise<Speaker> {
      await access.requirePermission(actor, input.projectId, "agenda:write");
      const data = parseInput(createSpeakerInput, input);
      const now = nowIso();
      const row: SpeakerRow = {
        id: newId(),
        project_id: data.projectId,
        name: data.name,
        bio: data.bio,
        company: data.company,
        job_title: data.jobTitle,
        photo_url: data.photoUrl ?? null,
        links: JSON.stringify(data.links),
        created_at: now,
        updated_at: now,
      };
      await inTransaction(db, actor, (trx) => repo.insertSpeaker(trx, row));
      await changes.notify(row.project_id);
      return presentSpeaker(row);
    },

    /** Updates a speaker's profile; `links` replaces the list. Needs agenda:write. */
    async updateSpeaker(actor: Actor, input: UpdateSpeakerInput): Promise<Speaker> {
      const data = parseInput(updateSpeakerInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateSpeaker(db, data.id),
        "Speaker",
        "agenda:write",
        speakerVisible,
        async (trx, projectId) => {
          const patch: Partial<SpeakerRow> = { updated_at: nowIso() };
          if (data.name !== undefined) patch.name = data.name;
          if (data.bio !== undefined) patch.bio = data.bio;
          if (data.company !== undefined) patch.company = data.company;
          if (data.jobTitle !== undefined) patch.job_title = data.jobTitle;
          if (data.photoUrl !== undefined) patch.photo_url = data.photoUrl;
          if (data.links !== undefined) patch.links = JSON.stringify(data.links);
          await repo.updateSpeaker(trx, projectId, data.id, patch);
          const updated = await repo.findSpeaker(trx, projectId, data.id);
          if (!updated) throw notFound("Speaker");
          return presentSpeaker(updated);
        },
      );
    },

    /** Deletes a speaker and removes them from their sessions; needs agenda:write. */
    async deleteSpeaker(actor: Actor, input: DeleteInput): Promise<Speaker> {
      const data = parseInput(deleteInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateSpeaker(db, data.id),
        "Speaker",
        "agenda:write",
        speakerVisible,
        async (trx, projectId) => {
          const row = await repo.findSpeaker(trx, projectId, data.id);
          if (!row) throw notFound("Speaker");
          await repo.deleteSpeaker(trx, projectId, data.id);
          return presentSpeaker(row);
        },
      );
    },

    // ---- sessions ----

    /** Creates a session (DRAFT unless told) with its speakers in order; needs agenda:write. */
    async createSession(actor: Actor, input: CreateSessionInput): Promise<Session> {
      await access.requirePermission(actor, input.projectId, "agenda:write");
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
      await inTransaction(db, actor, async (trx) => {
        await checkReferences(trx, row.project_id, data);
        await repo.insertSession(trx, row);
        await repo.replaceSessionSpeakers(trx, row.id, data.speakerIds);
      });
      await changes.notify(row.project_id);
      return presentSession(row);
    },

    /** Updates a session; `speakerIds` replaces the list. Needs agenda:write. */
    async updateSession(actor: Actor, input: UpdateSessionInput): Promise<Session> {
      const data = parseInput(updateSessionInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateSession(db, data.id),
        "Session",
        "agenda:write",
        sessionVisible,
        async (trx, projectId) => {
          const row = await repo.findSession(trx, projectId, data.id);
          if (!row) throw notFound("Session");
          checkTimes(data.startsAt ?? row.starts_at, data.endsAt ?? row.ends_at);
          await checkReferences(trx, projectId, data);
          const patch: Partial<SessionRow> = { updated_at: nowIso() };
          if (data.title !== undefined) patch.title = data.title;
          if (data.description !== undefined) patch.description = data.description;
          if (data.startsAt !== undefined) patch.starts_at = data.startsAt;
          if (data.endsAt !== undefined) patch.ends_at = data.endsAt;
          if (data.roomId !== undefined) patch.room_id = data.roomId;
          if (data.trackId !== undefined) patch.track_id = data.trackId;
          if (data.capacity !== undefined) patch.capacity = data.capacity;
          if (data.status !== undefined) patch.status = data.status;
          await repo.updateSession(trx, projectId, data.id, patch);
          if (data.speakerIds !== undefined) await repo.replaceSessionSpeakers(trx, data.id, data.speakerIds);
          const updated = await repo.findSession(trx, projectId, data.id);
          if (!updated) throw notFound("Session");
          return presentSession(updated);
        },
      );
    },

    /** Deletes a session (its speakers stay); needs agenda:write. */
    async deleteSession(actor: Actor, input: DeleteInput): Promise<Session> {
      const data = parseInput(deleteInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locateSession(db, data.id),
        "Session",
        "agenda:write",
        sessionVisible,
        async (trx, projectId) => {
          const row = await repo.findSession(trx, projectId, data.id);
          if (!row) throw notFound("Session");
          await repo.deleteSession(trx, projectId, data.id);
          return presentSession(row);
        },
      );
    },
  };
}
