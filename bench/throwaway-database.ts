import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * A database of its own for one bench run: a SQLite file in a temporary folder, or, given a
 * PostgreSQL server's URL, a new database on it. `drop` removes it.
 */
export async function benchDatabase(
  name: string,
  postgresServer: string | undefined,
): Promise<{ url: string; drop(): Promise<void> }> {
  const directory = mkdtempSync(join(tmpdir(), `eventgraph-bench-${name}-`));
  const postgresName = `eventgraph_bench_${name}_${process.pid}`;
  /** Runs one statement on the PostgreSQL server's own database (creating or dropping the bench's). */
  const onPostgresServer = async (statement: string) => {
    const admin = new pg.Client({ connectionString: postgresServer });
    await admin.connect();
    await admin.query(statement);
    await admin.end();
  };
  let url = `sqlite:${join(directory, "db.sqlite")}`;
  if (postgresServer) {
    await onPostgresServer(`create database "${postgresName}"`);
    const server = new URL(postgresServer);
    server.pathname = `/${postgresName}`;
    url = server.toString();
  }
  return {
    url,
    async drop() {
      rmSync(directory, { recursive: true, force: true });
      if (postgresServer) await onPostgresServer(`drop database if exists "${postgresName}" with (force)`);
    },
  };
}
