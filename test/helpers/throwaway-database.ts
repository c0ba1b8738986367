import { randomUUID } from "node:crypto";
import pg from "pg";
import type { TestEngine } from "./engines.js";

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

/**
 * A database of the caller's own on PostgreSQL (SQLite's is new for every context anyway). The run's
 * shared PostgreSQL database has every other file's webhook dispatchers polling it: they claim
 * whatever delivery falls due there, with their own configuration (other retry delays, private
 * networks refused), and a file's own claims would take theirs.
 */
export async function ownDatabase(
  engine: TestEngine,
  prefix: string,
): Promise<{ engine: TestEngine; drop: () => Promise<void> }> {
  if (engine.name === "sqlite") return { engine, drop: async () => {} };
  const { url, drop } = await throwawayPostgresDatabase(engine.newDatabaseUrl(), prefix);
  return { engine: { name: "postgres", newDatabaseUrl: () => url }, drop };
}
