import type { Tx } from "../../db/database.js";
import {
  attendeeText,
  type ErasedPerson,
  erasedEmail,
  erasedName,
  isErasedEmail,
  linesWithoutPerson,
  type OnAttendeeErased,
} from "../../shared/erasure.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { attendeeImportsRepository as imports } from "./attendee-imports.repository.js";
import { type AttendeeRow, attendeesRepository as repo } from "./attendees.repository.js";

/**
 * Erases one attendee (GDPR Art. 17) inside the caller's transaction. The row stays, with its
 * status, ticket type, ticket code and check-ins, so seats, sales and the Overview's counts still add
 * up; its name becomes "Erased attendee", its address one that can receive nothing, its company
 * none. The uploaded files that listed them lose them here; every other module takes them out of
 * what it stored through `onErased` (the audit log's values, webhook payloads and responses, ticket
 * emails, orders they bought, their event-page registration). The erasure itself is an event
 * (`attendee.erased`): the audit log keeps who erased whom and when, with no personal value, and
 * subscribed apps hear of it. Erasing again changes nothing.
 */
export async function eraseAttendeeIn(
  trx: Tx,
  deps: { changes: ProjectChanges; onErased: OnAttendeeErased },
  actor: object | undefined,
  row: AttendeeRow,
): Promise<AttendeeRow> {
  if (isErasedEmail(row.email)) {
    deps.changes.unchanged(trx);
    return row;
  }
  const person: ErasedPerson = {
    attendeeId: row.id,
    projectId: row.project_id,
    name: row.name,
    email: row.email,
    company: row.company,
  };
  const address = erasedEmail(row.id).toLowerCase();
  const patch = {
    name: erasedName,
    email: address,
    email_normalized: address,
    company: null,
    updated_at: nowIso(),
  };
  await repo.update(trx, row.project_id, row.id, patch);
  for (const file of await imports.mentioning(trx, row.project_id, row.email)) {
    if (file.content !== null)
      await imports.replaceContent(trx, file.id, linesWithoutPerson(file.content, attendeeText(person)));
  }
  await deps.onErased(trx, person);
  await deps.changes.event(trx, actor, {
    projectId: row.project_id,
    type: "attendee.erased",
    object: { typename: "Attendee", id: row.id },
    values: { erased: true },
  });
  return { ...row, ...patch };
}
