import { setImmediate as nextTurn } from "node:timers/promises";
import type { Db, Engine, Tx } from "../../db/database.js";
import { AppError, badInput, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { rowAnswers } from "../questions/answer-csv.js";
import type { AnswerValue, Question } from "../questions/questions.model.js";
import { questionsOfProject, saveCheckedAnswers } from "../questions/registration-answers.js";
import { queueTicketMails } from "../ticket-mails/ticket-mails.service.js";
import type { TicketTypeRow } from "../tickets/tickets.repository.js";
import {
  type AttendeeImport,
  type ImportOutcome,
  type ImportProblem,
  presentImport,
} from "./attendee-import.model.js";
import {
  type AttendeeImportRow,
  attendeeImportsRepository as imports,
} from "./attendee-imports.repository.js";
import { type AttendeeFilter, registrationRow } from "./attendee-input.js";
import type { AttendeeRow } from "./attendees.repository.js";
import { attendeesRepository } from "./attendees.repository.js";
import {
  guessMapping,
  type ImportMapping,
  mappingFromFields,
  maxImportBytes,
  type ParsedCsv,
  parseAttendeeCsv,
} from "./attendees-csv.js";
import { exportAttendeesCsv } from "./attendees-export.js";
import { seatCounts, seatRefusal, ticketTypesOf } from "./attendees-seats.js";

/** A column mapping as form fields: `map_name`, `map_email`, `map_company`, `map_ticketType`. */
type MappingFields = Record<string, string | undefined>;

/**
 * Rows per transaction: one lock of each ticket type and one multi-row insert per batch. On SQLite a
 * batch holds the one writing connection, and every check-in at the door waits for it, so batches
 * stay small there (a slightly slower import for a door that keeps answering). PostgreSQL's writes
 * do not queue behind a batch, so larger batches import faster.
 */
const batchSizes: Record<Engine, number> = { sqlite: 100, postgres: 500 };
/** Uploads not run or looked at for this long are deleted at the project's next upload. */
const uploadLifetimeMs = 24 * 60 * 60 * 1000;

interface Candidate {
  line: number;
  row: AttendeeRow;
  ticketType: TicketTypeRow;
  answers: Map<string, AnswerValue | null>;
}

/**
 * CSV imports of attendees. Every row goes through the registration schema (`registrationRow`) and
 * the sales rules (`seatRefusal`) of single registrations, so a file can do nothing the API could
 * not; rows are written in batched transactions that lock their ticket types like `registerAttendee`.
 */
export function createAttendeeImportService(
  db: Db,
  engine: Engine,
  access: AccessService,
  changes: ProjectChanges,
  /** Called after a batch queued ticket emails (the local mail worker wakes). */
  onTicketsQueued: () => void = () => {},
) {
  const batchSize = batchSizes[engine];
  async function loadImport(projectId: string, importId: string): Promise<AttendeeImportRow> {
    const row = await imports.find(db, projectId, importId);
    if (!row) throw notFound("Import");
    return row;
  }

  // The rows of one batch that pass the schema, name a ticket type and are not repeated in the file.
  function candidatesOf(
    projectId: string,
    batch: ParsedCsv["rows"],
    mapping: ImportMapping,
    ticketTypes: Map<string, TicketTypeRow>,
    seen: Map<string, number>,
    problems: ImportProblem[],
    questions: readonly Question[],
  ): Candidate[] {
    const cell = (cells: string[], column: number | null) => (column === null ? "" : (cells[column] ?? ""));
    const candidates: Candidate[] = [];
    for (const { line, cells } of batch) {
      const email = cell(cells, mapping.email);
      const typeText = cell(cells, mapping.ticketType);
      const ticketType = ticketTypes.get(typeText.toLowerCase()) ?? ticketTypes.get(typeText);
      if (!ticketType) {
        const message = typeText ? `no ticket type is named "${typeText}"` : "the ticket type is empty";
        problems.push({ line, email, kind: "unknown-ticket-type", message });
        continue;
      }
      let row: AttendeeRow;
      try {
        row = registrationRow({
          projectId,
          name: [cell(cells, mapping.name), cell(cells, mapping.lastName)].filter(Boolean).join(" "),
          email,
          company: cell(cells, mapping.company) || null,
          ticketTypeId: ticketType.id,
        });
      } catch (error) {
        const fields = error instanceof AppError ? (error.details.fieldErrors ?? []) : [];
        const message = fields.map((f) => `${f.field.join(".")} ${f.message}`).join("; ") || String(error);
        problems.push({ line, email, kind: "invalid", message });
        continue;
      }
      // Each mapped column answers its question, checked as every registration's answers are.
      const checked = rowAnswers(questions, ticketType.id, (id) => {
        const column = mapping.answers?.[id];
        return column === undefined ? "" : cell(cells, column);
      });
      if ("message" in checked) {
        problems.push({ line, email, kind: "invalid", message: checked.message });
        continue;
      }
      const earlier = seen.get(row.email_normalized);
      if (earlier !== undefined) {
        problems.push({ line, email, kind: "duplicate", message: `repeats the email of line ${earlier}` });
        continue;
      }
      seen.set(row.email_normalized, line);
      candidates.push({ line, row, ticketType, answers: checked.answers });
    }
    return candidates;
  }

  /**
   * Checks (dry run) or imports the rows. A real run commits each batch on its own: a failure
   * part-way keeps the batches before it, and running the file again skips them as duplicates.
   */
  async function importRows(
    actor: Actor,
    projectId: string,
    parsed: ParsedCsv,
    mapping: ImportMapping,
    options: {
      dryRun: boolean;
      /** Queue each imported attendee's ticket email in the batch's transaction. */
      sendTickets?: boolean;
      onProgress?: (processed: number, imported: number) => Promise<void>;
    },
  ): Promise<ImportOutcome> {
    await access.requirePermission(actor, projectId, "attendees:write");
    const types = await ticketTypesOf(db, projectId);
    const ticketTypes = new Map<string, TicketTypeRow>();
    for (const t of types) ticketTypes.set(t.name.trim().toLowerCase(), t).set(t.id, t);
    const questions = await questionsOfProject(db, projectId);
    // A mapping without question columns (the CLI's, guessed before the questions were known)
    // takes each question's column by its header, as an export names it.
    const columns = {
      ...mapping,
      answers: mapping.answers ?? guessMapping(parsed.headers, questions).answers,
    };
    const seen = new Map<string, number>();
    const problems: ImportProblem[] = [];
    // A dry run writes nothing, so the seats its earlier batches would take are counted here.
    const pendingSeats = new Map<string, number>();
    let imported = 0;
    for (let start = 0; start < parsed.rows.length; start += batchSize) {
      const batch = parsed.rows.slice(start, start + batchSize);
      const candidates = candidatesOf(projectId, batch, columns, ticketTypes, seen, problems, questions);
      const work = async (trx: Db) => {
        // Seat locks in one order (docs/runtime.md "Seat locks"): the project's version row, then the ticket types.
        if (!options.dryRun)
          await changes.recordAreas(trx as Tx, projectId, areasWrittenUnder("attendees:write"));
        const counts = await seatCounts(
          trx,
          projectId,
          candidates.map((c) => c.ticketType.id),
          !options.dryRun,
        );
        const sold = new Map<string, number>();
        for (const [typeId, count] of counts) {
          ticketTypes.set(typeId, count.ticketType);
          sold.set(typeId, count.sold + (pendingSeats.get(typeId) ?? 0));
        }
        const registered = await attendeesRepository.registeredEmails(
          trx,
          projectId,
          candidates.map((c) => c.row.email_normalized),
        );
        const accepted: Candidate[] = [];
        for (const candidate of candidates) {
          const { line, row } = candidate;
          if (registered.has(row.email_normalized)) {
            problems.push({
              line,
              email: row.email,
              kind: "duplicate",
              message: "is already registered for this event",
            });
            continue;
          }
          const ticketType = counts.get(row.ticket_type_id)?.ticketType;
          if (!ticketType) {
            const message = "the ticket type was deleted during the import";
            problems.push({ line, email: row.email, kind: "unknown-ticket-type", message });
            continue;
          }
          const taken = sold.get(ticketType.id) ?? 0;
          const waiting = counts.get(ticketType.id)?.waiting ?? 0;
          const refusal = seatRefusal(actor, ticketType, { sold: taken, waiting });
          if (refusal) {
            problems.push({ line, email: row.email, kind: "sold-out", message: refusal.message });
            continue;
          }
          sold.set(ticketType.id, taken + 1);
          accepted.push(candidate);
        }
        if (options.dryRun) {
          for (const c of accepted)
            pendingSeats.set(c.ticketType.id, (pendingSeats.get(c.ticketType.id) ?? 0) + 1);
          return accepted.length;
        }
        const inserted = await attendeesRepository.insertManyRegistered(
          trx,
          accepted.map((c) => c.row),
        );
        for (const c of accepted) {
          if (inserted.has(c.row.id)) {
            await saveCheckedAnswers(trx as Tx, { projectId, id: c.row.id }, c.answers, c.row.registered_at);
            // Each imported attendee is a registration like any other: audited, and announced to
            // apps subscribed to attendee.registered. Past the dry-run return, `trx` is a transaction.
            await changes.event(trx as Tx, actor, objectEvent(projectId, "Attendee", c.row.id, "registered"));
          } else {
            // Registered by someone else between our check and our insert.
            problems.push({
              line: c.line,
              email: c.row.email,
              kind: "duplicate",
              message: "is already registered for this event",
            });
          }
        }
        if (options.sendTickets && inserted.size > 0) {
          // In the batch's transaction: an imported attendee is never left without a queued ticket.
          await queueTicketMails(trx, projectId, [...inserted]);
        }
        return inserted.size;
      };
      const before = imported;
      imported += options.dryRun
        ? await work(db)
        : await changes.write(db, actor, projectId, work, areasWrittenUnder("attendees:write"));
      if (options.sendTickets && imported > before) onTicketsQueued();
      await options.onProgress?.(Math.min(start + batchSize, parsed.rows.length), imported);
      // Other requests run between batches.
      await nextTurn();
    }
    problems.sort((a, b) => a.line - b.line);
    return { dryRun: options.dryRun, total: parsed.rows.length, imported, problems };
  }

  return {
    importRows,

    /** The CSV of a filter's attendees, streamed page by page (see `exportAttendeesCsv`). */
    exportCsv: (projectAccess: ProjectAccess, filter: AttendeeFilter, onPage?: () => void) =>
      exportAttendeesCsv(db, projectAccess, filter, onPage),

    /** Stores an uploaded CSV for preview after checking that it parses; returns the import. */
    async upload(
      actor: Actor,
      projectId: string,
      fileName: string,
      content: Buffer,
    ): Promise<AttendeeImport> {
      const { projectId: id } = await access.requirePermission(actor, projectId, "attendees:write");
      if (content.length === 0) throw badInput([{ field: ["file"], message: "is empty: choose a CSV file" }]);
      if (content.length > maxImportBytes) {
        throw badInput([{ field: ["file"], message: `is larger than ${maxImportBytes / 1024 / 1024} MB` }]);
      }
      const text = content.toString("utf8");
      if (text.includes("\u0000") || text.includes("\uFFFD")) {
        throw badInput([{ field: ["file"], message: "is not UTF-8 text: save it as “CSV UTF-8”" }]);
      }
      const parsed = await parseAttendeeCsv(text);
      const now = nowIso();
      await imports.deleteStale(db, id, new Date(Date.now() - uploadLifetimeMs).toISOString());
      const row: AttendeeImportRow = {
        id: newId(),
        project_id: id,
        created_by: actor.kind === "user" ? actor.userId : null,
        file_name: fileName.slice(0, 200) || "attendees.csv",
        content: text,
        row_count: parsed.rows.length,
        status: "READY",
        mapping: null,
        processed_rows: 0,
        imported_rows: 0,
        skipped_rows: 0,
        created_at: now,
        updated_at: now,
      };
      await imports.insert(db, row);
      return presentImport(row);
    },

    /** An upload and its progress. */
    async get(actor: Actor, projectId: string, importId: string): Promise<AttendeeImport> {
      await access.requirePermission(actor, projectId, "attendees:write");
      return presentImport(await loadImport(projectId, importId));
    },

    /**
     * The file's header, first rows and what importing it would do with the mapping in `fields`
     * (`map_name=0`, … as forms send it; guessed from the header when absent).
     */
    async preview(actor: Actor, projectId: string, importId: string, fields?: MappingFields) {
      await access.requirePermission(actor, projectId, "attendees:write");
      const row = await loadImport(projectId, importId);
      if (row.status !== "READY") throw badInput([{ field: ["import"], message: "has already run" }]);
      const parsed = await parseAttendeeCsv(row.content);
      const questions = await questionsOfProject(db, projectId);
      const used = fields
        ? mappingFromFields(fields, parsed.headers.length, questions)
        : guessMapping(parsed.headers, questions);
      const complete = used.name !== null && used.email !== null && used.ticketType !== null;
      const outcome = complete
        ? await importRows(actor, projectId, parsed, used, { dryRun: true })
        : undefined;
      return {
        import: presentImport(row),
        headers: parsed.headers,
        sample: parsed.rows.slice(0, 5).map((r) => r.cells),
        mapping: used,
        questions,
        outcome,
      };
    },

    /**
     * Starts importing an upload with the mapping in `fields` (and each new attendee's ticket
     * emailed unless `sendTickets` is off); resolves once it is marked running, with `done`
     * settling when the last batch is written (progress is kept in the upload's row meanwhile).
     */
    async start(
      actor: Actor,
      projectId: string,
      importId: string,
      fields: MappingFields,
      options: { sendTickets: boolean } = { sendTickets: true },
    ) {
      await access.requirePermission(actor, projectId, "attendees:write");
      const row = await loadImport(projectId, importId);
      if (row.status !== "READY")
        throw badInput([{ field: ["import"], message: "is already running or done" }]);
      const parsed = await parseAttendeeCsv(row.content);
      const mapping = mappingFromFields(
        fields,
        parsed.headers.length,
        await questionsOfProject(db, projectId),
      );
      if (!(await imports.start(db, projectId, importId, JSON.stringify(mapping), nowIso()))) {
        throw badInput([{ field: ["import"], message: "is already running or done" }]);
      }
      const done = importRows(actor, projectId, parsed, mapping, {
        dryRun: false,
        sendTickets: options.sendTickets,
        onProgress: (processed, imported) =>
          imports.progress(
            db,
            projectId,
            importId,
            { processed_rows: processed, imported_rows: imported, skipped_rows: processed - imported },
            nowIso(),
          ),
      }).then(
        async (outcome) => {
          await imports.finish(db, projectId, importId, "DONE", nowIso());
          return outcome;
        },
        async (error: unknown) => {
          await imports.finish(db, projectId, importId, "READY", nowIso());
          throw error;
        },
      );
      return { done };
    },
  };
}
