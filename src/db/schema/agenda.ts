/*
 * The agenda: tracks, rooms, speakers and sessions. The database as a whole: ../schema.ts.
 */

export interface TracksTable {
  id: string;
  project_id: string;
  name: string;
  color: string | null;
  created_at: string;
}

export interface RoomsTable {
  id: string;
  project_id: string;
  name: string;
  capacity: number | null;
  created_at: string;
}

export interface SpeakersTable {
  id: string;
  project_id: string;
  name: string;
  bio: string | null;
  company: string | null;
  job_title: string | null;
  photo_url: string | null;
  /** JSON array of {label, url}. */
  links: string;
  created_at: string;
  updated_at: string;
}

export type SessionStatus = "DRAFT" | "PUBLISHED" | "CANCELLED";

export interface SessionsTable {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  starts_at: string;
  ends_at: string;
  room_id: string | null;
  track_id: string | null;
  capacity: number | null;
  status: SessionStatus;
  created_at: string;
  updated_at: string;
}

export interface SessionSpeakersTable {
  session_id: string;
  speaker_id: string;
  /** Order of the speaker on the session. */
  position: number;
}
