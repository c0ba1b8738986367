import type { Engine } from "../db/database.js";

/** A batch of rows, each row its values in the order of the columns asked for. */
export type Rows = unknown[][];

/**
 * One side of a copy, on either engine. The source is read in one snapshot (`snapshot`); the
 * target is written in one transaction (`begin` … `commit`) that also reads the copy back for the
 * verification, so a copy that fails or does not verify leaves the target as it was.
 */
export interface Endpoint {
  engine: Engine;
  /** Every table that holds data, with its columns in their declared order (bookkeeping tables left out). */
  tables(): Promise<Map<string, string[]>>;
  /** `[table, table it references]` for every foreign key. */
  references(): Promise<[string, string][]>;
  /** The names of the migrations applied to this database, sorted. */
  appliedMigrations(): Promise<string[]>;
  /** Reads a table in batches, in the snapshot (source) or the open transaction (target). */
  rows(table: string, columns: readonly string[]): AsyncIterable<Rows>;
  /** The table's rows, counted in the snapshot (for the progress bar). */
  count(table: string): Promise<number>;
  /** Whether the table has a row, read in the snapshot or the open transaction. */
  hasRows(table: string): Promise<boolean>;
  /** Source: starts the read-only snapshot every later read sees. */
  snapshot(): Promise<void>;
  /**
   * Target: starts the write transaction and turns off the triggers whose effects are copied
   * themselves (the version bumps and the Overview's counters), so a row arrives exactly as it was.
   */
  begin(): Promise<void>;
  /** Target: empties the tables (an ordered list, referenced tables first). */
  clear(tables: readonly string[]): Promise<void>;
  /** Target: inserts one batch. */
  insert(table: string, columns: readonly string[], rows: Rows): Promise<void>;
  /** Target: turns the triggers back on, moves sequences past the copied ids and commits. */
  commit(): Promise<void>;
  /** Ends whatever is open, and the connection. */
  close(): Promise<void>;
}

/** A failure the operator can act on: printed as one line, exit code 1. */
export class CopyDataError extends Error {
  override name = "CopyDataError";
}

/** Rows per batch, and the text per batch: an import's stored file may be megabytes on its own. */
const batchRows = 2000;
const batchChars = 8 * 1024 * 1024;

/** Cuts a stream of rows into batches bounded in count and in text. */
export function* inBatches(rows: Iterable<unknown[]>): Generator<Rows> {
  let batch: Rows = [];
  let chars = 0;
  for (const row of rows) {
    batch.push(row);
    for (const value of row) if (typeof value === "string") chars += value.length;
    if (batch.length >= batchRows || chars >= batchChars) {
      yield batch;
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/** The rows fetched per round trip from PostgreSQL. */
export const fetchRows = batchRows;

/** An SQL identifier in double quotes: names come from the catalogue, quoted all the same. */
export const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
