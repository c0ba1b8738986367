import type { Selectable } from "kysely";
import type {
  RoomsTable,
  SessionStatus,
  SessionsTable,
  SpeakersTable,
  TracksTable,
} from "../../db/schema.js";

// The agenda's row types, apart from both repositories that read them (agenda.repository.ts and
// agenda-reads.repository.ts), so neither imports the other's types back.

export type TrackRow = Selectable<TracksTable>;
export type RoomRow = Selectable<RoomsTable>;
export type SpeakerRow = Selectable<SpeakersTable>;
export type SessionRow = Selectable<SessionsTable>;

// Each agenda object's fields that an update copies to a column as given, with the column: the one
// map both the services' updates (`patchFrom`) and the audit log's snapshots read.

/** A session's plain fields and their columns (its speakers live in a table of their own). */
export const sessionFieldColumns = {
  title: "title",
  description: "description",
  startsAt: "starts_at",
  endsAt: "ends_at",
  roomId: "room_id",
  trackId: "track_id",
  capacity: "capacity",
  status: "status",
} as const;

/** A speaker's plain fields and their columns (its links are stored as JSON text, apart). */
export const speakerFieldColumns = {
  name: "name",
  bio: "bio",
  company: "company",
  jobTitle: "job_title",
  photoUrl: "photo_url",
} as const;

/** A track's fields and their columns. */
export const trackFieldColumns = { name: "name", color: "color" } as const;

/** A room's fields and their columns. */
export const roomFieldColumns = { name: "name", capacity: "capacity" } as const;

/** Which sessions a list shows; the service decides what the caller may ask for. */
export interface SessionQuery {
  statuses: readonly SessionStatus[];
  trackId?: string | undefined;
  roomId?: string | undefined;
}
