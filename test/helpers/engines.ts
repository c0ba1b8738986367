import { join } from "node:path";
import { test } from "node:test";
import type { Engine } from "../../src/db/database.js";
import { postgresMissing, thisTestFile } from "./requirements.js";
import { temporaryFolder } from "./temporary.js";

/** A database engine the suite runs against. */
export interface TestEngine {
  name: Engine;
  /** A database URL: a new SQLite file per call, or the shared PostgreSQL test database. */
  newDatabaseUrl(): string;
}

/** SQLite alone, for tests whose subject does not depend on the database (a page, a bundle). */
export const sqliteEngine: TestEngine = {
  name: "sqlite",
  newDatabaseUrl: () => {
    return `sqlite:${join(temporaryFolder("eventgraph-test-"), "db.sqlite")}`;
  },
};

// The files that have reported their skip: a worker of scripts/test.mjs runs many in one process.
const skipReported = new Set<string>();

/**
 * SQLite always; PostgreSQL when DATABASE_URL_POSTGRES is set. Tests on PostgreSQL share one
 * database, so each test creates its own users and projects and never assumes an empty table.
 * Without PostgreSQL the file gets one skipped test saying so (counted in the run's summary); in
 * CI a missing DATABASE_URL_POSTGRES fails the file instead.
 */
export function testEngines(): TestEngine[] {
  const missing = postgresMissing();
  if (!missing)
    return [
      sqliteEngine,
      { name: "postgres", newDatabaseUrl: () => process.env.DATABASE_URL_POSTGRES ?? "" },
    ];
  const file = thisTestFile();
  if (!skipReported.has(file)) test(`the PostgreSQL tests in ${file}`, { skip: missing }, () => {});
  skipReported.add(file);
  return [sqliteEngine];
}
