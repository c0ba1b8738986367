#!/usr/bin/env node
// Runs the compiled test files with node:test. Files are listed explicitly because node's own
// discovery would also run every helper under a `test/` folder. Arguments narrow the run to files
// whose path contains one of them (`npm test -- agenda`).
//
// Tests needing PostgreSQL, Redis or Chromium skip themselves, with the reason, when it is missing
// (test/helpers/requirements.ts); this script ends with the list of what was skipped and why. With
// CI=true nothing may be skipped: a skip, or a missing service, fails the run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

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
  console.log("DATABASE_URL_POSTGRES is not set: the PostgreSQL tests are skipped (listed at the end).");
}

const files = ["dist/src", "dist/test"]
  .flatMap((dir) => findTests(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  // tsc never deletes: a compiled test whose source was moved or removed must not run again.
  .filter((file) => existsSync(file.replace(/^dist\//, "").replace(/\.js$/, ".ts")))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(", ")}`);
  await dropDatabase();
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const skipDir = mkdtempSync(join(tmpdir(), "eventgraph-skips-"));
const skipLog = join(skipDir, "skips.jsonl");
const result = spawnSync(
  process.execPath,
  [
    "--enable-source-maps",
    // In every file's process: a file that does not exit after its tests fails instead of hanging the run.
    `--import=${join(import.meta.dirname, "test-file-watchdog.mjs")}`,
    "--test",
    // A test awaiting something that never comes, with a handle keeping its process alive, fails
    // after ten minutes instead of holding the run (the longest suite takes a few minutes).
    "--test-timeout=600000",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${join(import.meta.dirname, "skip-reporter.mjs")}`,
    `--test-reporter-destination=${skipLog}`,
    ...files,
  ],
  { stdio: "inherit" },
);
await dropDatabase().catch((error) => console.error(`Could not drop the test database: ${error.message}`));

const skips = readFileSync(skipLog, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
rmSync(skipDir, { recursive: true, force: true });
if (skips.length > 0) {
  const byReason = new Map();
  for (const skip of skips) byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
  console.log(`\nSkipped ${skips.length} test(s):`);
  for (const [reason, list] of byReason) {
    console.log(`  ${list.length} because ${reason}:`);
    for (const skip of list) {
      console.log(`    ${skip.file ? `${relative(process.cwd(), skip.file)}: ` : ""}${skip.name}`);
    }
  }
}
// A test of a fast path's own behaviour skips itself when EVENTGRAPH_FAST_PATHS turns that path
// off (test/helpers/test-services.ts, fastPathOff): the run on the plain path expects those.
const unexpected = skips.filter((skip) => !/^fast path [a-z-]+ is off$/.test(skip.reason));
if (process.env.CI === "true" && unexpected.length > 0) {
  console.error("CI=true: nothing may be skipped in CI, so the run fails.");
  process.exit(1);
}
process.exit(result.status ?? 1);
