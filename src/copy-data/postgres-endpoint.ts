import pg from "pg";
import { type Endpoint, fetchRows, quoted, type Rows } from "./endpoint.js";

/**
 * A PostgreSQL database as either side of a copy, on one connection of its own. As a target its
 * triggers are turned off per table inside the copying transaction (`disable trigger user`, which
 * the tables' owner may do, unlike `session_replication_role`); the foreign keys stay checked, so
 * the tables are filled referenced-first.
 */
export async function postgresEndpoint(url: string): Promise<Endpoint> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A lost connection surfaces as the failure of the statement under way; no crash on the event.
  client.on("error", () => {});
  await client.connect();
  let open = false;
  let columnTypes = new Map<string, Map<string, string>>();
  let tablesWithTriggersOff: string[] = [];

  const loadTables = async () => {
    const { rows } = await client.query<{ table: string; column: string; type: string }>(
      `select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid
       where n.nspname = current_schema() and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
         and c.relname not like 'kysely\\_%'
       order by c.relname, a.attnum`,
    );
    const tables = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const columns = tables.get(row.table) ?? new Map<string, string>();
      columns.set(row.column, row.type);
      tables.set(row.table, columns);
    }
    columnTypes = tables;
    return tables;
  };

  return {
    engine: "postgres",
    async tables() {
      const tables = await loadTables();
      return new Map([...tables].map(([name, columns]) => [name, [...columns.keys()]]));
    },
    async references() {
      const { rows } = await client.query<{ table: string; referenced: string }>(
        `select c.relname as table, r.relname as referenced
         from pg_constraint k
         join pg_class c on c.oid = k.conrelid
         join pg_class r on r.oid = k.confrelid
         where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`,
      );
      return rows.map((row) => [row.table, row.referenced]);
    },
    async appliedMigrations() {
      const { rows } = await client.query<{ exists: boolean }>(
        "select to_regclass('kysely_migration') is not null as exists",
      );
      if (!rows[0]?.exists) return [];
      const applied = await client.query<{ name: string }>("select name from kysely_migration");
      return applied.rows.map((row) => row.name).sort();
    },
    async *rows(table, columns): AsyncIterable<Rows> {
      // A cursor inside the open transaction: one batch in memory at a time, whatever the table's size.
      await client.query(
        `declare copy_rows no scroll cursor for select ${columns.map(quoted).join(", ")} from ${quoted(table)}`,
      );
      try {
        for (;;) {
          const { rows } = await client.query<unknown[]>({
            text: `fetch ${fetchRows} from copy_rows`,
            rowMode: "array",
          });
          if (rows.length === 0) break;
          yield rows;
        }
      } finally {
        await client.query("close copy_rows");
      }
    },
    async count(table) {
      const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${quoted(table)}`);
      return Number(rows[0]?.n ?? 0);
    },
    async hasRows(table) {
      const { rowCount } = await client.query(`select 1 from ${quoted(table)} limit 1`);
      return (rowCount ?? 0) > 0;
    },
    async snapshot() {
      await client.query("begin isolation level repeatable read read only");
      open = true;
    },
    async begin() {
      await client.query("begin");
      open = true;
      tablesWithTriggersOff = [...(await loadTables()).keys()];
      for (const table of tablesWithTriggersOff) {
        await client.query(`alter table ${quoted(table)} disable trigger user`);
      }
    },
    async clear(tables) {
      // One TRUNCATE of every table at once: the foreign keys between them allow it, and the
      // triggers that refuse TRUNCATE of an access table are off (the target is being replaced).
      if (tables.length > 0) await client.query(`truncate table ${tables.map(quoted).join(", ")}`);
    },
    async insert(table, columns, rows) {
      // One parameter per column, an array of the batch's values: no limit on parameters per
      // statement, one round trip per batch.
      const types = columnTypes.get(table);
      const arrays = columns.map((_, i) => rows.map((row) => row[i] ?? null));
      const unnest = columns.map((column, i) => `$${i + 1}::${types?.get(column) ?? "text"}[]`).join(", ");
      await client.query(
        `insert into ${quoted(table)} (${columns.map(quoted).join(", ")}) select * from unnest(${unnest})`,
        arrays,
      );
    },
    async commit() {
      for (const table of tablesWithTriggersOff) {
        await client.query(`alter table ${quoted(table)} enable trigger user`);
      }
      // Ids a sequence hands out (webhook_deliveries.seq) continue after the copied ones.
      const { rows } = await client.query<{ table: string; column: string }>(
        `select table_name as table, column_name as column from information_schema.columns
         where table_schema = current_schema() and column_default like 'nextval(%'`,
      );
      for (const { table, column } of rows) {
        await client.query(
          `select setval(pg_get_serial_sequence($1, $2), coalesce(max(${quoted(column)}), 0) + 1, false) from ${quoted(table)}`,
          [quoted(table), column],
        );
      }
      await client.query("commit");
      open = false;
    },
    async close() {
      try {
        if (open) await client.query("rollback");
      } finally {
        await client.end();
      }
    },
  };
}
