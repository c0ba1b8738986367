import { nowIso } from "../../shared/time.js";
import type { WaitingListEntryRow } from "./waiting-list.repository.js";

/** One place in a ticket type's waiting list, as every reader sees it. */
export interface WaitingListEntry {
  id: string;
  projectId: string;
  ticketTypeId: string;
  name: string;
  email: string;
  /** An offer past its time reads EXPIRED at once, before the worker records it. */
  state: "WAITING" | "OFFERED" | "ACCEPTED" | "EXPIRED" | "REMOVED";
  offeredAt: string | null;
  offerExpiresAt: string | null;
  attendeeId: string | null;
  createdAt: string;
}

/** An entry as every reader sees it, at `now`. */
export function presentEntry(row: WaitingListEntryRow, now = nowIso()): WaitingListEntry {
  const lapsed = row.state === "OFFERED" && row.offer_expires_at !== null && row.offer_expires_at <= now;
  return {
    id: row.id,
    projectId: row.project_id,
    ticketTypeId: row.ticket_type_id,
    name: row.name,
    email: row.email,
    state: lapsed ? "EXPIRED" : row.state,
    offeredAt: row.offered_at,
    offerExpiresAt: row.offer_expires_at,
    attendeeId: row.attendee_id,
    createdAt: row.created_at,
  };
}

/** An entry as the CLI lists and exports it: with its ticket type's name and its place in line. */
export interface ExportedEntry extends WaitingListEntry {
  ticketTypeName: string;
  /** 1 for the next to be offered a seat of its ticket type; null once offered, taken or gone. */
  place: number | null;
}
