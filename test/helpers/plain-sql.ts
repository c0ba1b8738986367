import SQLite from "better-sqlite3";
import pg from "pg";

/**
 * A connection of its own to a test database, as an operator's `psql` or `sqlite3` shell would open
 * one: plain SQL, outside the product's write path. SQLite's foreign keys stay off, as in the shell.
 * Statements are written with `?` placeholders; values are always sent as parameters.
 */
export interface PlainSql {
  run(statement: string, ...values: unknown[]): Promise<void>;
  all<Row = Record<string, unknown>>(statement: string, ...values: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function plainSql(databaseUrl: string): Promise<PlainSql> {
  if (databaseUrl.startsWith("sqlite:")) {
    const sqlite = new SQLite(databaseUrl.slice("sqlite:".length));
    sqlite.pragma("busy_timeout = 5000");
    return {
      run: async (statement, ...values) => void sqlite.prepare(statement).run(...values),
      all: async <Row>(statement: string, ...values: unknown[]) =>
        sqlite.prepare(statement).all(...values) as Row[],
      close: async () => {
        sqlite.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let n = 0;
  const numbered = (statement: string) => {
    n = 0;
    return statement.replace(/\?/g, () => `$${++n}`);
  };
  return {
    run: async (statement, ...values) => void (await client.query(numbered(statement), values)),
    all: async <Row>(statement: string, ...values: unknown[]) =>
      (await client.query(numbered(statement), values)).rows as Row[],
    close: () => client.end(),
  };
}

/** Every text value in the database that contains `needle` (any case): `table.column` per hit. */
export async function findEverywhere(sql: PlainSql, engine: string, needle: string): Promise<string[]> {
  const pattern = `%${needle.toLowerCase()}%`;
  const columns =
    engine === "sqlite"
      ? await sql.all<{ t: string; c: string }>(
          `select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
           where m.type = 'table'`,
        )
      : await sql.all<{ t: string; c: string }>(
          `select table_name as t, column_name as c from information_schema.columns
           where table_schema = current_schema() and data_type in ('text', 'character varying')`,
        );
  const hits: string[] = [];
  for (const { t, c } of columns) {
    // SQLite keeps any type in any column: every value stored as text is searched.
    const where =
      engine === "sqlite" ? `typeof("${c}") = 'text' and lower("${c}") like ?` : `lower("${c}") like ?`;
    const [row] = await sql.all<{ n: number | string }>(
      `select count(*) as n from "${t}" where ${where}`,
      pattern,
    );
    if (Number(row?.n) > 0) hits.push(`${t}.${c}`);
  }
  return hits;
}
