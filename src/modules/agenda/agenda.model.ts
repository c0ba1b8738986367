import { z } from "zod";
import type { SessionStatus } from "../../db/schema.js";
import { idText } from "../../shared/validation.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { RoomRow, SessionRow, SpeakerRow, TrackRow } from "./agenda-rows.js";

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
export function presentTrack(row: TrackRow): Track {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    color: row.color,
    createdAt: row.created_at,
  };
}

/** A room as it leaves the service. */
export function presentRoom(row: RoomRow): Room {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    capacity: row.capacity,
    createdAt: row.created_at,
  };
}

/** A speaker as it leaves the service, with the stored JSON links parsed. */
export function presentSpeaker(row: SpeakerRow): Speaker {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    bio: row.bio,
    company: row.company,
    jobTitle: row.job_title,
    photoUrl: row.photo_url,
    // Absent when the caller did not ask for the links (see Columns in db/projection.ts).
    links: row.links === undefined ? [] : (JSON.parse(row.links) as SpeakerLink[]),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A session as it leaves the service. */
export function presentSession(row: SessionRow): Session {
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

/** A single lookup: the item and the caller's access to its project (for field-level checks). */
export interface Found<T> {
  item: T;
  access: ProjectAccess;
}

// ---- rules shared by the agenda's services ----

/** A row id: any non-empty text (an unknown one answers NOT_FOUND). */
export const rowId = idText;
/** Seats of a room or a session. */
export const capacity = z
  .number()
  .int("must be a whole number")
  .min(0, "must not be negative")
  .max(1_000_000);
/** The input of every delete: the row's id. */
export const deleteInput = z.object({ id: rowId });
/** Input of `delete…`: the row's id. */
export type DeleteInput = z.input<typeof deleteInput>;
