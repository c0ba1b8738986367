import { existsSync } from "node:fs";
import SQLite from "better-sqlite3";
import { CopyDataError, type Endpoint, inBatches, quoted, type Rows } from "./endpoint.js";

interface MasterRow {
  name: string;
  sql: string | null;
}

/**
 * A SQLite file as either side of a copy. As a source it is opened read-only and must exist: a
 * mistyped path must not leave an empty database behind.
 */
export function sqliteEndpoint(path: string, role: "source" | "target"): Endpoint {
  if (role === "source" && !existsSync(path)) throw new CopyDataError(`There is no database at ${path}`);
  const db = new SQLite(path, role === "source" ? { readonly: true, fileMustExist: true } : {});
  // A server still running on the file holds its lock only briefly; wait for it rather than fail.
  db.pragma("busy_timeout = 5000");
  // The triggers turned off for the copy, with the statements that make them again.
  let dropped: MasterRow[] = [];

  const master = (type: "table" | "trigger") =>
    db.prepare("select name, sql from sqlite_master where type = ? order by name").all(type) as MasterRow[];

  /**
   * The full-text index (attendees_search, a virtual table with its shadow tables) is derived from
   * attendees and keyed by the target's own rowids: it is not copied, its triggers fill it.
   */
  const virtualTables = () =>
    master("table")
      .filter((t) => t.sql?.toUpperCase().startsWith("CREATE VIRTUAL TABLE"))
      .map((t) => t.name);

  return {
    engine: "sqlite",
    async tables() {
      const derived = virtualTables();
      const names = master("table")
        .map((t) => t.name)
        .filter(
          (name) =>
            !name.startsWith("sqlite_") &&
            !name.startsWith("kysely_") &&
            !derived.some((v) => name === v || name.startsWith(`${v}_`)),
        );
      return new Map(
        names.map((name) => [
          name,
          (db.pragma(`table_info(${quoted(name)})`) as { name: string }[]).map((c) => c.name),
        ]),
      );
    },
    async references() {
      const pairs: [string, string][] = [];
      for (const table of (await this.tables()).keys()) {
        for (const fk of db.pragma(`foreign_key_list(${quoted(table)})`) as { table: string }[]) {
          pairs.push([table, fk.table]);
        }
      }
      return pairs;
    },
    async appliedMigrations() {
      const exists = db.prepare("select 1 from sqlite_master where name = 'kysely_migration'").get();
      if (!exists) return [];
      return db.prepare("select name from kysely_migration order by name").pluck().all() as string[];
    },
    async *rows(table, columns): AsyncIterable<Rows> {
      const select = db.prepare(`select ${columns.map(quoted).join(", ")} from ${quoted(table)}`).raw(true);
      yield* inBatches(select.iterate() as Iterable<unknown[]>);
    },
    async count(table) {
      return db
        .prepare(`select count(*) from ${quoted(table)}`)
        .pluck()
        .get() as number;
    },
    async hasRows(table) {
      return db.prepare(`select 1 from ${quoted(table)} limit 1`).get() !== undefined;
    },
    async snapshot() {
      // A deferred transaction's first read fixes the snapshot (WAL): a server writing meanwhile
      // changes nothing this copy sees.
      db.exec("begin");
      db.prepare("select count(*) from sqlite_master").get();
    },
    async begin() {
      db.exec("begin immediate");
      const keep = virtualTables();
      dropped = master("trigger").filter((t) => !keep.some((v) => t.name.startsWith(`${v}_`)));
      for (const trigger of dropped) db.exec(`drop trigger ${quoted(trigger.name)}`);
    },
    async clear(tables) {
      for (const table of [...tables].reverse()) db.exec(`delete from ${quoted(table)}`);
    },
    async insert(table, columns, rows) {
      const insert = db.prepare(
        `insert into ${quoted(table)} (${columns.map(quoted).join(", ")}) values (${columns.map(() => "?").join(", ")})`,
      );
      for (const row of rows) insert.run(row);
    },
    async commit() {
      // DDL is transactional in SQLite: the triggers come back in the same commit as the rows.
      for (const trigger of dropped) if (trigger.sql) db.exec(trigger.sql);
      dropped = [];
      db.exec("commit");
    },
    async close() {
      if (db.inTransaction) db.exec("rollback");
      db.close();
    },
  };
}
