import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "../../src/db/database.js";

/** A database engine the suite runs against. */
export interface TestEngine {
  name: Engine;
  /** A database URL: a new SQLite file per call, or the shared PostgreSQL test database. */
  newDatabaseUrl(): string;
}

const sqlite: TestEngine = {
  name: "sqlite",
  newDatabaseUrl: () => `sqlite:${join(mkdtempSync(join(tmpdir(), "eventgraph-test-")), "db.sqlite")}`,
};

/**
 * SQLite always; PostgreSQL when DATABASE_URL_POSTGRES is set. Tests on PostgreSQL share one
 * database, so each test creates its own users and projects and never assumes an empty table.
 */
export function testEngines(): TestEngine[] {
  const postgresUrl = process.env.DATABASE_URL_POSTGRES;
  return postgresUrl ? [sqlite, { name: "postgres", newDatabaseUrl: () => postgresUrl }] : [sqlite];
}
