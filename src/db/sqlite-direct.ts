import type SQLite from "better-sqlite3";
import { statementStarts, yieldIfLoopHeld } from "./loop-yield.js";

/** What a statement of a transaction that has ended (or whose work failed) is refused with. */
export class TransactionEndedError extends Error {
  constructor() {
    super("The statement's transaction has already ended; it was not run");
    this.name = "TransactionEndedError";
  }
}

/** A statement's report as Kysely's `log` option receives it; openDatabase turns it into its hooks. */
export interface QueryLogEvent {
  level: "query" | "error";
  query: { sql: string; parameters: readonly unknown[] };
  queryDurationMillis: number;
}

// Transaction handles whose work has ended or failed (see endedTransaction).
const endedTransactions = new WeakSet<object>();

/**
 * Says that the work of transaction `trx` has ended (committed or failed): a statement it still
 * sends straight to better-sqlite3 is refused, since it would run in whatever transaction holds the
 * connection by then (another caller's, or none). Statements through Kysely are refused by the
 * connection handle (sqlite-group-commit.ts).
 */
export function endedTransaction(trx: object): void {
  endedTransactions.add(trx);
}

/**
 * Runs one compiled SQL text for `db` with a call's parameters and resolves to its rows; undefined
 * when it must go through Kysely instead (see SqliteDirect).
 */
export type DirectStatement<Row> = (
  db: { readonly isTransaction: boolean },
  parameters: readonly unknown[],
) => Promise<Row[]> | undefined;

/**
 * The SQLite path of `reusableQuery`: its fixed statements run straight on a better-sqlite3
 * statement prepared once, instead of through Kysely's executor. For a page of the API, the
 * executor's connection lock, result plugins and logging wrapper were several promise hops per
 * statement, and better-sqlite3 building one object per row (a native call per column) cost a
 * third more than returning arrays and naming their columns here (docs/decisions.md).
 *
 * Kysely keeps its one SQLite connection for a transaction from BEGIN to COMMIT and makes every
 * other statement wait. A transaction's own statements run here on that connection. A read from
 * outside a transaction runs here only while no transaction is open: beside one it would see that
 * transaction's uncommitted writes, so it waits for the connection in Kysely instead. A write outside
 * a transaction always goes through Kysely: it may have to wait for another process's write lock,
 * which Kysely's connection does on the event loop (sqlite-lock-wait.ts) while holding the
 * connection, so no transaction of this process can begin under it. (A second, read-only connection
 * for those reads was tried and measured: it won nothing a user noticed, and the door's check-in
 * p99 was lower without it; docs/performance.md.)
 */
export class SqliteDirect {
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly log: ((event: QueryLogEvent) => void) | undefined,
  ) {}

  /** The runner of `sql`, prepared on its first run; each run reports to the log and then yields if the loop was held. */
  statement<Row>(sql: string): DirectStatement<Row> {
    const run = this.runner<Row>(sql);
    let writes: boolean | undefined;
    // `isTransaction`: the handle of the transaction that holds the connection.
    return (db, parameters) => {
      if (db.isTransaction) {
        if (endedTransactions.has(db)) return Promise.reject(new TransactionEndedError());
        return run(parameters);
      }
      writes ??= this.writes(sql);
      if (writes !== false) return undefined;
      return this.sqlite.inTransaction ? undefined : run(parameters);
    };
  }

  // Runs `sql`, prepared on its first run; each run reports to the log and then yields if the loop
  // was held.
  private runner<Row>(sql: string) {
    let run: ((parameters: readonly unknown[]) => Row[]) | undefined;
    return async (parameters: readonly unknown[]) => {
      const start = performance.now();
      let rows: Row[];
      try {
        run ??= this.prepare<Row>(sql);
        statementStarts();
        rows = run(parameters);
      } catch (error) {
        this.report("error", sql, parameters, start);
        throw error;
      }
      this.report("query", sql, parameters, start);
      // The same rule as every other statement's (loop-yield.ts).
      await yieldIfLoopHeld();
      return rows;
    };
  }

  // Whether `sql` writes; undefined when it cannot be prepared (yet): its run reports why.
  private writes(sql: string): boolean | undefined {
    try {
      return !this.sqlite.prepare(sql).readonly;
    } catch {
      return undefined;
    }
  }

  private report(level: QueryLogEvent["level"], sql: string, parameters: readonly unknown[], start: number) {
    this.log?.({ level, query: { sql, parameters }, queryDurationMillis: performance.now() - start });
  }

  // What a statement's runs do: its rows, or an empty list for a statement that returns none.
  private prepare<Row>(sql: string): (parameters: readonly unknown[]) => Row[] {
    const statement = this.sqlite.prepare(sql);
    if (!statement.reader) {
      return (parameters) => {
        statement.run(parameters);
        return [];
      };
    }
    // A `*` may select whole rows, whose columns change with a migration: names read once would
    // then be wrong, so such a statement keeps better-sqlite3's objects (it names them every run).
    if (sql.includes("*")) return (parameters) => statement.all(parameters) as Row[];
    statement.raw(true);
    const names = statement.columns().map((column) => column.name);
    return (parameters) => {
      // The array of arrays is reused for the rows (one allocation less per statement).
      const rows = statement.all(parameters) as unknown[];
      for (let i = 0; i < rows.length; i++) rows[i] = named(names, rows[i] as unknown[]);
      return rows as Row[];
    };
  }
}

// A row as better-sqlite3 would have built it: columns in order, a repeated name keeps the last value.
function named(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
  return row;
}
