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

/** Which sessions a list shows; the service decides what the caller may ask for. */
export interface SessionQuery {
  statuses: readonly SessionStatus[];
  trackId?: string | undefined;
  roomId?: string | undefined;
}
