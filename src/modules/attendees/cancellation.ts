import type { Tx } from "../../db/database.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import type { AttendeeRow } from "./attendees.repository.js";
import { attendeesRepository as repo } from "./attendees.repository.js";

/**
 * What else happens, in the same transaction, when a registration is cancelled (the check-ins
 * module undoes the active check-in). services.ts passes it in, so this module knows nothing of
 * the modules built on attendees and the dependency runs one way.
 */
export type OnAttendeeCancelled = (
  trx: Tx,
  projectId: string,
  attendeeId: string,
  at: string,
) => Promise<unknown>;

/**
 * Cancels one active registration inside the caller's transaction: the row stays, its seat is
 * free, its check-in undone, its event recorded. The one place of these effects, for a single
 * cancellation and for the tickets of a cancelled or expired order.
 */
export async function cancelActiveRegistration(
  trx: Tx,
  deps: { changes: ProjectChanges; onCancelled: OnAttendeeCancelled },
  actor: object | undefined,
  row: AttendeeRow,
  now: string,
): Promise<AttendeeRow> {
  const patch = { status: "CANCELLED" as const, cancelled_at: now, updated_at: now, held_until: null };
  await repo.update(trx, row.project_id, row.id, patch);
  await deps.onCancelled(trx, row.project_id, row.id, now);
  await deps.changes.event(trx, actor, objectEvent(row.project_id, "Attendee", row.id, "cancelled"));
  return { ...row, ...patch };
}
