import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Db } from "../../db/database.js";
import { spreadsheetSafe } from "../../shared/spreadsheet-safe.js";
import type { ProjectAccess } from "../access/access.service.js";
import { answerCell, answerHeaders } from "../questions/answer-csv.js";
import type { AnswerValue } from "../questions/questions.model.js";
import { answersByAttendee, questionsOfProject } from "../questions/registration-answers.js";
import { type AttendeeFilter, attendeeQueryFor } from "./attendee-input.js";
import { type AttendeeExportRow, attendeesRepository } from "./attendees.repository.js";
import { csvWriter } from "./attendees-csv.js";

/**
 * Rows read per statement: memory stays at one page whatever the export's size.
 * @internal Exported for its tests (they count the statements of an export).
 */
export const exportPageSize = 1_000;

/** The columns of an export, in order (an import maps name, email, company and ticket_type back). */
const columns: [header: string, value: (row: AttendeeExportRow) => string | null][] = [
  ["id", (r) => r.id],
  ["name", (r) => r.name],
  ["email", (r) => r.email],
  ["company", (r) => r.company],
  ["ticket_type", (r) => r.ticket_type_name],
  ["ticket_type_id", (r) => r.ticket_type_id],
  ["status", (r) => r.status],
  ["ticket_code", (r) => r.ticket_code],
  ["registered_at", (r) => r.registered_at],
  ["cancelled_at", (r) => r.cancelled_at],
  ["checked_in_at", (r) => r.checked_in_at],
];

/**
 * The header, then the attendees of a filter in registration order, read page by page (keyset) as
 * they are consumed; after the fixed columns, one per registration question with each answer.
 */
async function* exportRows(db: Db, access: ProjectAccess, filter: AttendeeFilter, onPage?: () => void) {
  const query = attendeeQueryFor(access, filter);
  const questions = await questionsOfProject(db, access.projectId);
  const fixed = columns.map(([header]) => header);
  yield [...fixed, ...answerHeaders(questions, fixed)].map(spreadsheetSafe);
  let after: [string, string] | undefined;
  for (;;) {
    const page = await attendeesRepository.exportPage(db, access.projectId, query, after, exportPageSize);
    onPage?.();
    const answers =
      questions.length > 0
        ? await answersByAttendee(
            db,
            access.projectId,
            page.map((row) => row.id),
          )
        : new Map<string, Map<string, AnswerValue>>();
    for (const row of page) {
      const own = answers.get(row.id);
      yield [
        ...columns.map(([, value]) => value(row) ?? ""),
        ...questions.map((q) => answerCell(own?.get(q.id))),
      ].map(spreadsheetSafe);
    }
    const last = page.at(-1);
    if (!last || page.length < exportPageSize) return;
    after = [last.registered_at, last.id];
  }
}

/**
 * The CSV of a filter's attendees as a stream: pages are read only as fast as the consumer (an HTTP
 * response, a file) takes them, so 200,000 attendees never sit in memory at once. Needs attendees:read
 * (checked before the first byte, so a refusal is an ordinary error, not a cut-off download).
 * `onPage` is told of each statement (tests count them).
 */
export function exportAttendeesCsv(
  db: Db,
  access: ProjectAccess,
  filter: AttendeeFilter,
  onPage?: () => void,
): Readable {
  attendeeQueryFor(access, filter);
  const writer = csvWriter();
  // A failed page destroys the writer, which ends the download with an error rather than a short file.
  pipeline(Readable.from(exportRows(db, access, filter, onPage)), writer).catch((error: unknown) =>
    writer.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return writer;
}
