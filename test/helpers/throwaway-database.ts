import { randomUUID } from "node:crypto";
import pg from "pg";

/**
 * A new, empty PostgreSQL database on the server `serverUrl` points at, for a test that must not
 * share the run's database (its migrations, or claims that would take other files' rows), and how to
 * drop it afterwards.
 */
export async function throwawayPostgresDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `eventgraph_${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
