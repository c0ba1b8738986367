import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CsvError, parse } from "csv-parse";
import { stringify } from "csv-stringify";
import { badInput } from "../../errors.js";
import { spreadsheetSafe } from "../../shared/spreadsheet-safe.js";
import { answerHeaders } from "../questions/answer-csv.js";
import type { Question } from "../questions/questions.model.js";

/** The largest attendee CSV accepted (bytes): about 50,000 typical rows. */
export const maxImportBytes = 5 * 1024 * 1024;
/** The most data rows one import takes; a larger list is split into several files. */
export const maxImportRows = 20_000;
/**
 * The most columns a row may have. The preview offers every column for each field and shows the
 * first rows in full: a 30,000-column file held the event loop for 0.6–1.9 s. Exports of
 * ticketing tools have a few dozen.
 */
const maxImportColumns = 200;

/**
 * The attendee fields a CSV column can fill. `lastName` is joined to `name` with a space, for the
 * many lists that keep first and last names in two columns.
 */
export const importFields = ["name", "lastName", "email", "company", "ticketType"] as const;
export type ImportField = (typeof importFields)[number];

/** The fields a mapping may leave without a column. */
export const optionalImportFields: ReadonlySet<ImportField> = new Set(["lastName", "company"]);

/**
 * Which column (0-based) fills each field; null leaves an optional field empty. `answers` maps a
 * registration question's id to the column of its answers (a question without one is unanswered).
 */
export type ImportMapping = Record<ImportField, number | null> & { answers?: Record<string, number> };

/** The form field that names a question's column in a mapping. */
export const answerMapField = (questionId: string) => `map_answer_${questionId}`;

/** Labels of the fields, for the mapping form and error messages. */
export const importFieldLabels: Record<ImportField, string> = {
  name: "Name (or first name)",
  lastName: "Last name (joined to the name)",
  email: "Email",
  company: "Company",
  ticketType: "Ticket type",
};

/** A parsed CSV: its header row and its data rows, each with its line number in the file. */
export interface ParsedCsv {
  headers: string[];
  rows: { line: number; cells: string[] }[];
}

/**
 * Parses CSV text (a header row, then one attendee per row) through csv-parse's streaming parser, so
 * a large file is read in chunks between which other requests run. Refuses more than
 * `maxImportRows` rows or `maxImportColumns` columns, and text that is not CSV, with BAD_USER_INPUT
 * naming the line.
 */
export async function parseAttendeeCsv(text: string, delimiter = ","): Promise<ParsedCsv> {
  const parser = parse({
    delimiter,
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: 64 * 1024,
    info: true,
  });
  // Fed in slices so a 5 MB file does not become one synchronous parse.
  const feed = async () => {
    const slice = 64 * 1024;
    for (let at = 0; at < text.length && !parser.destroyed; at += slice) {
      if (!parser.write(text.slice(at, at + slice))) await new Promise((r) => parser.once("drain", r));
    }
    parser.end();
  };
  const rows: ParsedCsv["rows"] = [];
  let headers: string[] | undefined;
  try {
    const feeding = feed();
    for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (record.record.length > maxImportColumns) {
        parser.destroy();
        throw badInput([
          {
            field: ["file"],
            message: `has ${record.record.length.toLocaleString("en")} columns on line ${record.info.lines}; an import takes at most ${maxImportColumns}`,
          },
        ]);
      }
      if (!headers) {
        headers = record.record;
        continue;
      }
      if (rows.length >= maxImportRows) {
        parser.destroy();
        throw badInput([
          { field: ["file"], message: `has more than ${maxImportRows.toLocaleString("en")} rows: split it` },
        ]);
      }
      rows.push({ line: record.info.lines, cells: record.record });
    }
    await feeding;
  } catch (error) {
    if (error instanceof CsvError) {
      throw badInput([{ field: ["file"], message: `is not valid CSV (${error.message})` }]);
    }
    throw error;
  }
  if (!headers || headers.every((h) => h === "")) {
    throw badInput([
      { field: ["file"], message: "is empty: it needs a header row and one row per attendee" },
    ]);
  }
  return { headers, rows };
}

// Header texts (lower-cased, without spaces, dashes and underscores) that name each field.
const headerAliases: Record<ImportField, string[]> = {
  name: ["name", "fullname", "attendee", "attendeename", "participant", "firstname", "givenname", "forename"],
  lastName: ["lastname", "surname", "familyname"],
  email: ["email", "emailaddress", "mail"],
  company: ["company", "organization", "organisation", "employer"],
  ticketType: ["tickettype", "ticket", "type", "tickettypename", "tickettypeid"],
};

/** A first mapping guessed from the header row; the organizer confirms or changes it in the preview. */
export function guessMapping(headers: readonly string[], questions: readonly Question[] = []): ImportMapping {
  const keys = headers.map((h) => h.toLowerCase().replace(/[\s_-]/g, ""));
  const find = (field: ImportField) => {
    const index = keys.findIndex((k) => headerAliases[field].includes(k));
    return index === -1 ? null : index;
  };
  return {
    name: find("name"),
    // A last-name column joins a first-name column, not a column that already holds whole names.
    lastName: /first|given|fore/.test(keys[find("name") ?? -1] ?? "") ? find("lastName") : null,
    email: find("email"),
    company: find("company"),
    ticketType: find("ticketType"),
    answers: guessAnswerColumns(headers, questions),
  };
}

/** A question's column: the header an export gives it (its label), in any case. */
function guessAnswerColumns(headers: readonly string[], questions: readonly Question[]) {
  const columns: Record<string, number> = {};
  const lower = headers.map((h) => h.trim().toLowerCase());
  for (const [i, header] of answerHeaders(questions).entries()) {
    const column = lower.indexOf(header.toLowerCase());
    const question = questions[i];
    if (question && column !== -1) columns[question.id] = column;
  }
  return columns;
}

/**
 * A mapping from text fields (`map_name=2`, ...), each a column of the file or empty; checks that
 * name, email and ticket type are mapped and that no column is used twice.
 */
export function mappingFromFields(
  values: Record<string, string | undefined>,
  columnCount: number,
  questions: readonly Question[] = [],
): ImportMapping {
  const mapping = {} as ImportMapping;
  const errors: { field: string[]; message: string }[] = [];
  for (const field of importFields) {
    const raw = values[`map_${field}`] ?? "";
    const column = raw === "" ? null : Number(raw);
    if (column !== null && !(Number.isInteger(column) && column >= 0 && column < columnCount)) {
      errors.push({ field: [`map_${field}`], message: "is not a column of the file" });
      continue;
    }
    if (column === null && !optionalImportFields.has(field)) {
      errors.push({
        field: [`map_${field}`],
        message: `needs a column: every attendee has a ${importFieldLabels[field].toLowerCase()}`,
      });
    }
    mapping[field] = column;
  }
  mapping.answers = {};
  for (const question of questions) {
    const raw = values[answerMapField(question.id)] ?? "";
    if (raw === "") continue;
    const column = Number(raw);
    if (!(Number.isInteger(column) && column >= 0 && column < columnCount))
      errors.push({ field: [answerMapField(question.id)], message: "is not a column of the file" });
    else mapping.answers[question.id] = column;
  }
  const used = importFields.map((f) => mapping[f]).filter((c) => c !== null);
  if (new Set(used).size !== used.length)
    errors.push({ field: ["mapping"], message: "uses a column for two fields" });
  if (errors.length > 0) throw badInput(errors);
  return mapping;
}

/**
 * A CSV writer (csv-stringify) with the given header row, to pipe rows of cells into; without one,
 * the first row piped in is the header (a header known only once the stream has begun).
 */
export function csvWriter(header?: readonly string[]) {
  return header ? stringify({ header: true, columns: [...header], bom: false }) : stringify({ bom: false });
}

/** A column of an exported CSV: its header and how a row's cell is read. */
export type CsvColumn<T> = [header: string, value: (row: T) => string | number | null];

/**
 * The CSV of `rows` under `columns` as a stream, read only as fast as the consumer (an HTTP
 * response, a file) takes it; cells a spreadsheet would run as a formula are defused. Permission
 * checks belong before the call, so a refusal is an ordinary error rather than a cut-off file.
 */
export function csvOf<T>(columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): Readable {
  const writer = csvWriter(columns.map(([header]) => header));
  async function* cells() {
    for await (const row of rows) yield columns.map(([, value]) => spreadsheetSafe(String(value(row) ?? "")));
  }
  // A failed page destroys the writer, which ends the download with an error rather than a short file.
  pipeline(Readable.from(cells()), writer).catch((error: unknown) =>
    writer.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return writer;
}
