import { z } from "zod";
import type { Db } from "../../db/database.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, notNull, parseInput, requiredText } from "../../shared/validation.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { createRow, patchFrom, type RowWriter, resolveRowAccess } from "../access/row-access.js";
import {
  capacity,
  type DeleteInput,
  type Found,
  presentRoom,
  presentTrack,
  type Room,
  rowId,
  type Track,
} from "./agenda.model.js";
import { agendaRepository as repo } from "./agenda.repository.js";
import { type RoomRow, roomFieldColumns, type TrackRow, trackFieldColumns } from "./agenda-rows.js";
import { type AgendaTable, deleteAgendaRow, updateAgendaRow } from "./agenda-writes.js";

const color = z
  .string()
  .trim()
  .regex(/^#[0-9A-Fa-f]{6}$/, "must be a color in the form #RRGGBB")
  .transform((c) => c.toUpperCase());

const trackFields = { name: requiredText(120), color: color.nullish() };
const createTrackInput = z.object({ projectId: idText, ...trackFields });
const updateTrackInput = z
  .object({ id: rowId, ...trackFields, name: notNull(trackFields.name) })
  .partial({ name: true, color: true });

const roomFields = { name: requiredText(120), capacity: capacity.nullish() };
const createRoomInput = z.object({ projectId: idText, ...roomFields });
const updateRoomInput = z
  .object({ id: rowId, ...roomFields, name: notNull(roomFields.name) })
  .partial({ name: true, capacity: true });

/** Input of `createTrack`. */
export type CreateTrackInput = z.input<typeof createTrackInput>;
/** Input of `updateTrack`; omitted fields stay, null clears the color. */
export type UpdateTrackInput = z.input<typeof updateTrackInput>;
/** Input of `createRoom`. */
export type CreateRoomInput = z.input<typeof createRoomInput>;
/** Input of `updateRoom`; omitted fields stay, null clears the capacity. */
export type UpdateRoomInput = z.input<typeof updateRoomInput>;

type VenueRow = TrackRow | RoomRow;

/**
 * What differs between tracks and rooms: their SQL, how they are presented and their own fields.
 * Everything else (who may read and write them, how they are created, changed and deleted) is
 * `venueOperations`, written once for both.
 */
interface VenueKind<R extends VenueRow, T, C extends z.ZodType, U extends z.ZodType>
  extends AgendaTable<R, T> {
  createInput: C;
  updateInput: U;
  /** The row's own columns from a parsed create input. */
  columns(data: z.output<C>): Omit<R, "id" | "project_id" | "created_at">;
  /** The row's own columns from a parsed update input (the caller's fields only). */
  patch(data: z.output<U>): Partial<R>;
  list(db: Db, projectId: string, window: PageWindow): Promise<R[]>;
  count(db: Db, projectId: string): Promise<number>;
  byIds(db: Db, ids: readonly string[]): Promise<R[]>;
  insert(db: Db, row: R): Promise<void>;
  update(db: Db, projectId: string, id: string, patch: Partial<R>): Promise<void>;
}

// Tracks and rooms are public: any caller who sees the project sees them.
const anyone = () => true;

function venueOperations<
  R extends VenueRow,
  T extends { id: string; name: string },
  C extends z.ZodType,
  U extends z.ZodType,
>(writer: RowWriter, kind: VenueKind<R, T, C, U>) {
  const { db } = writer;
  const event = (row: R, verb: string) => objectEvent(row.project_id, kind.what, row.id, verb);
  return {
    async list(projectAccess: ProjectAccess, window: PageWindow): Promise<Page<T>> {
      const rows = await kind.list(db, projectAccess.projectId, window);
      return toPage(rows.map(kind.present), window, (v) => [v.name, v.id]);
    },

    count: (projectAccess: ProjectAccess) => kind.count(db, projectAccess.projectId),

    async byIds(ids: readonly string[]): Promise<Map<string, T>> {
      if (ids.length === 0) return new Map();
      const rows = await kind.byIds(db, ids);
      return new Map(rows.map((r) => [r.id, kind.present(r)]));
    },

    async find(actor: Actor, id: string): Promise<Found<T> | undefined> {
      const row = await kind.locate(db, id);
      const found = await resolveRowAccess(writer.access, actor, row, kind.visible);
      return row && found ? { item: kind.present(row), access: found } : undefined;
    },

    async create(actor: Actor, input: z.input<C> & { projectId: string }): Promise<T> {
      const row = await createRow(
        writer,
        actor,
        input.projectId,
        "agenda:write",
        () => {
          const data = parseInput(kind.createInput, input) as z.output<C> & { projectId: string };
          return {
            ...kind.columns(data),
            id: newId(),
            project_id: data.projectId,
            created_at: nowIso(),
          } as R;
        },
        async (trx, prepared) => {
          await kind.insert(trx, prepared);
          await writer.changes.event(trx, actor, event(prepared, "created"));
        },
      );
      return kind.present(row);
    },

    async update(actor: Actor, input: z.input<U> & { id: string }): Promise<T> {
      const data = parseInput(kind.updateInput, input) as z.output<U> & { id: string };
      return updateAgendaRow(writer, actor, kind, data, async (trx, projectId) => {
        const patch = kind.patch(data);
        if (Object.keys(patch).length > 0) await kind.update(trx, projectId, data.id, patch);
      });
    },

    delete: (actor: Actor, input: DeleteInput): Promise<T> => deleteAgendaRow(writer, actor, kind, input),
  };
}

const trackKind: VenueKind<TrackRow, Track, typeof createTrackInput, typeof updateTrackInput> = {
  what: "Track",
  visible: anyone,
  createInput: createTrackInput,
  updateInput: updateTrackInput,
  columns: (data) => ({ name: data.name, color: data.color ?? null }),
  patch: (data) => patchFrom<typeof data, TrackRow>(data, trackFieldColumns),
  present: presentTrack,
  list: repo.listTracks,
  count: repo.countTracks,
  find: repo.findTrack,
  locate: repo.locateTrack,
  byIds: repo.tracksByIds,
  insert: repo.insertTrack,
  update: repo.updateTrack,
  remove: repo.deleteTrack,
};

const roomKind: VenueKind<RoomRow, Room, typeof createRoomInput, typeof updateRoomInput> = {
  what: "Room",
  visible: anyone,
  createInput: createRoomInput,
  updateInput: updateRoomInput,
  columns: (data) => ({ name: data.name, capacity: data.capacity ?? null }),
  patch: (data) => patchFrom<typeof data, RoomRow>(data, roomFieldColumns),
  present: presentRoom,
  list: repo.listRooms,
  count: repo.countRooms,
  find: repo.findRoom,
  locate: repo.locateRoom,
  byIds: repo.roomsByIds,
  insert: repo.insertRoom,
  update: repo.updateRoom,
  remove: repo.deleteRoom,
};

/** Tracks and rooms: public lists and lookups; creating, changing and deleting them needs agenda:write. */
export function createVenuesService(writer: RowWriter) {
  const tracks = venueOperations(writer, trackKind);
  const rooms = venueOperations(writer, roomKind);
  return {
    /** Tracks by name; public. */
    listTracks: (access: ProjectAccess, window: PageWindow): Promise<Page<Track>> =>
      tracks.list(access, window),
    /** Total number of tracks. */
    countTracks: (access: ProjectAccess): Promise<number> => tracks.count(access),
    /** Tracks by id, one statement for any number of ids (ids come from rows the caller may read). */
    tracksByIds: (ids: readonly string[]): Promise<Map<string, Track>> => tracks.byIds(ids),
    /** A track of a project the actor may see. */
    findTrack: (actor: Actor, id: string): Promise<Found<Track> | undefined> => tracks.find(actor, id),
    /** Creates a track; needs agenda:write. */
    createTrack: (actor: Actor, input: CreateTrackInput): Promise<Track> => tracks.create(actor, input),
    /** Renames or recolors a track; needs agenda:write. */
    updateTrack: (actor: Actor, input: UpdateTrackInput): Promise<Track> => tracks.update(actor, input),
    /** Deletes a track; its sessions stay, without a track. Needs agenda:write. */
    deleteTrack: (actor: Actor, input: DeleteInput): Promise<Track> => tracks.delete(actor, input),

    /** Rooms by name; public. */
    listRooms: (access: ProjectAccess, window: PageWindow): Promise<Page<Room>> => rooms.list(access, window),
    /** Total number of rooms. */
    countRooms: (access: ProjectAccess): Promise<number> => rooms.count(access),
    /** Rooms by id, one statement for any number of ids (ids come from rows the caller may read). */
    roomsByIds: (ids: readonly string[]): Promise<Map<string, Room>> => rooms.byIds(ids),
    /** A room of a project the actor may see. */
    findRoom: (actor: Actor, id: string): Promise<Found<Room> | undefined> => rooms.find(actor, id),
    /** Creates a room; needs agenda:write. */
    createRoom: (actor: Actor, input: CreateRoomInput): Promise<Room> => rooms.create(actor, input),
    /** Renames a room or changes its capacity; needs agenda:write. */
    updateRoom: (actor: Actor, input: UpdateRoomInput): Promise<Room> => rooms.update(actor, input),
    /** Deletes a room; its sessions stay, without a room. Needs agenda:write. */
    deleteRoom: (actor: Actor, input: DeleteInput): Promise<Room> => rooms.delete(actor, input),
  };
}
