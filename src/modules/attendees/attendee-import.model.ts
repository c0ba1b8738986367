import type { AttendeeImportRow } from "./attendee-imports.repository.js";

// What an attendee CSV import reports: its upload's state and each row it does not import.

/** Why a row of the file is not imported. */
type ImportProblemKind = "invalid" | "unknown-ticket-type" | "sold-out" | "duplicate";

/** One row that is not imported, with its line in the file. */
export interface ImportProblem {
  line: number;
  email: string;
  kind: ImportProblemKind;
  message: string;
}

/** What an import did, or (dry run) would do. */
export interface ImportOutcome {
  dryRun: boolean;
  total: number;
  /** Rows imported (or that a real run would import). */
  imported: number;
  problems: ImportProblem[];
}

/** An uploaded file as the preview and progress pages show it (without its text). */
export interface AttendeeImport {
  id: string;
  projectId: string;
  fileName: string;
  rowCount: number;
  status: AttendeeImportRow["status"];
  processedRows: number;
  importedRows: number;
  skippedRows: number;
  createdAt: string;
}

export function presentImport(row: AttendeeImportRow): AttendeeImport {
  return {
    id: row.id,
    projectId: row.project_id,
    fileName: row.file_name,
    rowCount: row.row_count,
    status: row.status,
    processedRows: row.processed_rows,
    importedRows: row.imported_rows,
    skippedRows: row.skipped_rows,
    createdAt: row.created_at,
  };
}
