import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { openDatabase, redactUrl } from "../db/database.js";
import { migrateToLatest, migrationNames, openAndMigrate } from "../db/migrate.js";
import { TableChecksum } from "./checksum.js";
import { CopyDataError, type Endpoint } from "./endpoint.js";
import { postgresEndpoint } from "./postgres-endpoint.js";
import { sqliteEndpoint } from "./sqlite-endpoint.js";

/** What was copied, table by table, as verified in the target. */
export interface CopyReport {
  from: string;
  to: string;
  tables: { table: string; rows: number; checksum: string }[];
  rows: number;
  milliseconds: number;
}

/** Progress as the copy goes: a batch written, or the verification of a table. */
export type CopyProgress =
  | { step: "copy"; table: string; done: number; total: number }
  | { step: "verify"; table: string; rows: number };

interface CopyOptions {
  /** Replace a target that holds rows. */
  force: boolean;
  onProgress?: (progress: CopyProgress) => void;
}

type Location = { engine: "sqlite"; path: string } | { engine: "postgres"; url: string };

function locate(url: string, flag: string): Location {
  if (/^sqlite:.+/.test(url)) return { engine: "sqlite", path: url.slice("sqlite:".length) };
  if (/^postgres(ql)?:\/\/.+/.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new CopyDataError(`${flag} is not a valid postgres:// URL: ${redactUrl(url)}`);
    }
    return { engine: "postgres", url };
  }
  throw new CopyDataError(`${flag} must be sqlite:<path> or postgres://user@host:port/database`);
}

/** Whether two locations name the same database (copying one onto itself would empty it). */
function sameDatabase(a: Location, b: Location): boolean {
  if (a.engine === "sqlite" && b.engine === "sqlite") {
    const real = (path: string) => {
      try {
        return realpathSync(path);
      } catch {
        return resolve(path);
      }
    };
    return real(a.path) === real(b.path);
  }
  if (a.engine === "postgres" && b.engine === "postgres") {
    const [x, y] = [new URL(a.url), new URL(b.url)];
    return (
      x.hostname === y.hostname && (x.port || "5432") === (y.port || "5432") && x.pathname === y.pathname
    );
  }
  return false;
}

async function open(location: Location, role: "source" | "target", url: string): Promise<Endpoint> {
  try {
    return location.engine === "sqlite"
      ? sqliteEndpoint(location.path, role)
      : await postgresEndpoint(location.url);
  } catch (error) {
    if (error instanceof CopyDataError) throw error;
    throw new CopyDataError(`Cannot open the database at ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

/** The tables in an order where each comes after every table it references. */
function referencedFirst(tables: readonly string[], references: [string, string][]): string[] {
  const pending = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const [table, referenced] of references) {
    if (table !== referenced && pending.has(referenced)) pending.get(table)?.add(referenced);
  }
  const order: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending].filter(([, needs]) => needs.size === 0).map(([t]) => t);
    if (ready.length === 0)
      throw new CopyDataError(`The foreign keys between ${[...pending.keys()]} form a cycle`);
    for (const table of ready.sort()) {
      order.push(table);
      pending.delete(table);
      for (const needs of pending.values()) needs.delete(table);
    }
  }
  return order;
}

/** Refuses a source that is not at this release's schema: its columns would not match the target's. */
async function assertSameSchema(source: Endpoint, target: Endpoint): Promise<Map<string, string[]>> {
  const applied = await source.appliedMigrations();
  if (applied.join() !== [...migrationNames].sort().join()) {
    const behind = migrationNames.filter((name) => !applied.includes(name));
    throw new CopyDataError(
      behind.length > 0
        ? `The source database lacks ${behind.length} migration(s) of this release; migrate it first (DATABASE_URL=<from> eventgraph migrate)`
        : "The source database has migrations this release does not know; copy it with the release that wrote it",
    );
  }
  const [ours, theirs] = [await source.tables(), await target.tables()];
  for (const [table, columns] of ours) {
    const other = theirs.get(table);
    if (!other) throw new CopyDataError(`The target has no table ${table}`);
    const missing = columns.filter((c) => !other.includes(c));
    if (missing.length > 0) throw new CopyDataError(`The target's ${table} lacks ${missing.join(", ")}`);
  }
  for (const table of theirs.keys()) {
    if (!ours.has(table)) throw new CopyDataError(`The source has no table ${table}`);
  }
  return ours;
}

/**
 * Copies every row of every table from one database to another (SQLite to PostgreSQL, or back),
 * keeping ids, timestamps and versions exactly: the target is migrated first, filled in one
 * transaction with its triggers off (the copied rows already hold their versions and counters),
 * read back and checked table by table (row count and checksum) before that transaction commits.
 * A copy that fails or does not verify leaves the target as it was.
 */
export async function copyData(fromUrl: string, toUrl: string, options: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  const from = locate(fromUrl, "--from");
  const to = locate(toUrl, "--to");
  if (sameDatabase(from, to)) throw new CopyDataError("--from and --to name the same database");

  const source = await open(from, "source", fromUrl);
  try {
    // Before the target is touched: a source that cannot be copied leaves no new database behind.
    if ((await source.appliedMigrations()).length === 0) {
      throw new CopyDataError(`${redactUrl(fromUrl)} holds no Eventgraph database`);
    }
    const migrating = openDatabase(toUrl, { poolSize: 1 });
    try {
      await openAndMigrate(migrating, toUrl, (opened) => migrateToLatest(opened.db));
    } catch (error) {
      throw new CopyDataError((error as Error).message);
    } finally {
      await migrating.close();
    }
    const target = await open(to, "target", toUrl);
    try {
      const tables = await assertSameSchema(source, target);
      const order = referencedFirst([...tables.keys()], await target.references());
      await source.snapshot();
      await target.begin();
      if (!options.force) {
        for (const table of order) {
          if (await target.hasRows(table)) {
            throw new CopyDataError(
              `The target database holds data (${table}); stop every server using it and pass --force to replace it`,
            );
          }
        }
      }
      await target.clear(order);

      const copied = new Map<string, TableChecksum>();
      for (const table of order) {
        const columns = tables.get(table) ?? [];
        const checksum = new TableChecksum();
        const total = await source.count(table);
        for await (const batch of source.rows(table, columns)) {
          for (const row of batch) checksum.add(row);
          try {
            await target.insert(table, columns, batch);
          } catch (error) {
            // A value the target's column refuses (SQLite stores any type in any column).
            throw new CopyDataError(
              `Cannot copy ${table}: ${(error as Error).message.split("\n")[0]}; the target is unchanged`,
            );
          }
          options.onProgress?.({ step: "copy", table, done: checksum.rows, total });
        }
        if (checksum.rows === 0) options.onProgress?.({ step: "copy", table, done: 0, total });
        copied.set(table, checksum);
      }

      const report: CopyReport["tables"] = [];
      for (const table of order) {
        const expected = copied.get(table) ?? new TableChecksum();
        const found = new TableChecksum();
        for await (const batch of target.rows(table, tables.get(table) ?? [])) {
          for (const row of batch) found.add(row);
        }
        if (found.rows !== expected.rows || found.hex() !== expected.hex()) {
          throw new CopyDataError(
            `Verification failed for ${table}: ${expected.rows} rows (checksum ${expected.hex()}) copied, ${found.rows} (checksum ${found.hex()}) read back; the target is unchanged`,
          );
        }
        options.onProgress?.({ step: "verify", table, rows: found.rows });
        report.push({ table, rows: found.rows, checksum: found.hex() });
      }
      await target.commit();
      return {
        from: redactUrl(fromUrl),
        to: redactUrl(toUrl),
        tables: report,
        rows: report.reduce((sum, t) => sum + t.rows, 0),
        milliseconds: Math.round(performance.now() - started),
      };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
