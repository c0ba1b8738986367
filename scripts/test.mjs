#!/usr/bin/env node
// Runs the compiled test files with node:test. Files are listed explicitly because node's own
// discovery would also run every helper under a `test/` folder. Arguments narrow the run to files
// whose path contains one of them (`npm test -- agenda`).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const filters = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith(".test.js") ? [path] : [];
  });
}

if (process.env.CI === "true" && !process.env.DATABASE_URL_POSTGRES) {
  console.error(
    "CI=true but DATABASE_URL_POSTGRES is not set: the PostgreSQL suite must not be skipped in CI.",
  );
  process.exit(1);
}

// Each run gets a fresh PostgreSQL database on the server DATABASE_URL_POSTGRES names, dropped at the
// end: runs never see each other's rows (or migrations of another branch), and CI starts clean.
let dropDatabase = async () => {};
if (process.env.DATABASE_URL_POSTGRES) {
  const { default: pg } = await import("pg");
  const { openDatabase } = await import("../dist/src/db/database.js");
  const { migrateToLatest } = await import("../dist/src/db/migrate.js");
  const serverUrl = process.env.DATABASE_URL_POSTGRES;
  const name = `eventgraph_test_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL_POSTGRES = url.toString();
  // Migrate once before the files run in parallel: concurrent first-time migrations race on
  // PostgreSQL's catalog even with Kysely's lock table.
  const database = openDatabase(url.toString());
  await migrateToLatest(database.db);
  await database.close();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  };
} else {
  console.log("DATABASE_URL_POSTGRES is not set: running the SQLite suite only.");
}

const files = ["dist/src", "dist/test"]
  .flatMap((dir) => findTests(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(", ")}`);
  await dropDatabase();
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const result = spawnSync(
  process.execPath,
  ["--enable-source-maps", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files],
  { stdio: "inherit" },
);
await dropDatabase().catch((error) => console.error(`Could not drop the test database: ${error.message}`));
process.exit(result.status ?? 1);
