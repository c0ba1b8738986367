#!/usr/bin/env node
// Runs the compiled test files with node:test. Files are listed explicitly because node's own
// discovery would also run every helper under a `test/` folder. Arguments narrow the run to files
// whose path contains one of them (`npm test -- agenda`).
//
// How the files are grouped, and why. Loading the app's module graph (Fastify, GraphQL, Kysely, the
// OpenTelemetry packages: about 640 modules) costs 1.5-2 s of CPU, and with one process per file,
// node:test's only mode on Node 20, 165 files paid it 165 times. Measured side by side on 2 cores,
// the whole suite took 727 s of CPU that way and 420 s this way. So the files are not processes of their own: each group has a queue of files and a few
// worker processes (scripts/test-worker.mjs, one per core) that each take the next file from the
// queue and run it inside a suite named after it, until the queue is empty. A file still runs alone
// (one file at a time per worker, after the previous one's `after` hooks), fails on its own (a file
// that fails to load or times out fails its suite and the worker goes on), and is timed on its own.
// What it shares with the files before it is the process: module state, process.env (no test writes
// it) and the process's open handles, which is why a file must close what it opens.
//
// The groups: the process drills (test/ops: servers started, stopped and starved as separate
// processes) have their own queue and a single worker, beside the rest: two drills at once would
// fight over the same cores and time-outs, while a drill mostly waits on its child processes, so it
// costs the other group little. Once the drills are done, their worker takes the rest's files too. With TEST_CONCURRENCY=1 the groups run one after the other, with one
// worker each. A file that no worker finished (its worker crashed or was killed) fails the run.
//
// Tests needing PostgreSQL, Redis or Chromium skip themselves, with the reason, when it is missing
// (test/helpers/requirements.ts); this script ends with the list of what was skipped and why. With
// CI=true nothing may be skipped: a skip, or a missing service, fails the run.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

// `--bench` runs the bench harness's own checks (bench/check/, `npm run bench:check`) instead of the suite.
const bench = process.argv.includes("--bench");
const filters = process.argv.slice(2).filter((arg) => arg !== "--bench");

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

// Each run gets fresh PostgreSQL databases on the server DATABASE_URL_POSTGRES names, dropped at the
// end: runs never see each other's rows (or migrations of another branch), and CI starts clean. Each
// worker process gets a database of its own (copied from one migrated template): files in one worker
// run one after another, but servers in two workers sharing a database would take each other's
// work (a webhook dispatcher claimed another file's deliveries and sent them under its own rules).
let dropDatabase = async () => {};
/** The database of each worker, by its entry file's index (one entry per worker). */
let workerDatabase = () => undefined;
if (process.env.DATABASE_URL_POSTGRES) {
  const { default: pg } = await import("pg");
  const { openDatabase } = await import("../dist/src/db/database.js");
  const { migrateToLatest } = await import("../dist/src/db/migrate.js");
  const serverUrl = process.env.DATABASE_URL_POSTGRES;
  const prefix = `eventgraph_test_${Date.now().toString(36)}_${process.pid}`;
  const created = [];
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const urlOf = (name) => {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  await admin.query(`create database "${prefix}"`);
  created.push(prefix);
  // Migrate once before the files run in parallel: concurrent first-time migrations race on
  // PostgreSQL's catalog even with Kysely's lock table.
  const database = openDatabase(urlOf(prefix));
  await migrateToLatest(database.db);
  await database.close();
  process.env.DATABASE_URL_POSTGRES = urlOf(prefix);
  const copies = new Map();
  workerDatabase = async (key) => {
    if (!copies.has(key)) {
      const name = `${prefix}_${key}`;
      await admin.query(`create database "${name}" template "${prefix}"`);
      created.push(name);
      copies.set(key, urlOf(name));
    }
    return copies.get(key);
  };
  dropDatabase = async () => {
    await admin.end().catch(() => {});
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    for (const name of created) await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  };
} else {
  console.log("DATABASE_URL_POSTGRES is not set: the PostgreSQL tests are skipped (listed at the end).");
}

const files = (bench ? ["dist/bench"] : ["dist/src", "dist/test"])
  .flatMap((dir) => findTests(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  // The compiler never deletes: a compiled test whose source was moved or removed must not run again.
  .filter((file) => existsSync(file.replace(/^dist\//, "").replace(/\.js$/, ".ts")))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(", ")}`);
  await dropDatabase();
  process.exit(1);
}

// One migrated SQLite file for the run: every test's fresh SQLite database starts as a copy of it
// (test/helpers/test-services.ts) instead of running every migration again.
const logDir = mkdtempSync(join(tmpdir(), "eventgraph-test-run-"));
{
  const { openDatabase } = await import("../dist/src/db/database.js");
  const { migrateToLatest } = await import("../dist/src/db/migrate.js");
  const template = join(logDir, "template.sqlite");
  const database = openDatabase(`sqlite:${template}`);
  await migrateToLatest(database.db);
  await database.close();
  process.env.SQLITE_TEMPLATE_TEST = template;
}

const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism()));
const drills = files.filter((file) => file.includes("/test/ops/"));
// Longest first: the browser and docs files take the longest (tens of seconds each), and started
// last they would leave one worker running them alone at the end of the run.
const slowFirst = ["/test/browser/", "/test/docs/"];
const rank = (file) => {
  const index = slowFirst.findIndex((dir) => file.includes(dir));
  return index === -1 ? slowFirst.length : index;
};
const rest = files.filter((file) => !drills.includes(file)).sort((a, b) => rank(a) - rank(b));
const groups = [
  { name: "suite", files: rest, workers: Math.min(concurrency, rest.length) },
  { name: "drills", files: drills, workers: 1 },
].filter((group) => group.files.length > 0);

/**
 * A group's workers' environment: its queue and, for the drills' worker, the suite's queue to take
 * files from once the drills are done (the drills took 355 s of a 586 s run in CI, leaving a core's
 * worth of waiting idle for the rest). Run one after the other (TEST_CONCURRENCY=1), the suite's
 * queue is empty by then.
 */
function workerEnv(queue, group) {
  // Set or removed here, never inherited: a run inside a test (test/ops/test-runner.test.ts) must not
  // take its outer run's files.
  const { TEST_QUEUE_AFTER: _outer, ...env } = process.env;
  const after = group.name === "drills" && rest.length > 0 ? { TEST_QUEUE_AFTER: join(logDir, "suite") } : {};
  return { ...env, TEST_QUEUE: queue, ...after };
}

/** Runs one group's files in its workers under node:test; resolves to its exit status. */
async function runGroup(group) {
  const queue = join(logDir, group.name);
  mkdirSync(queue);
  writeFileSync(join(queue, "files.json"), JSON.stringify(group.files));
  // node:test runs files: one small file per worker, each only loading the worker.
  const worker = pathToFileURL(join(import.meta.dirname, "test-worker.mjs")).href;
  const entries = [];
  for (let index = 0; index < group.workers; index++) {
    const entry = join(queue, `worker-${index + 1}.mjs`);
    const database = await workerDatabase(`${group.name}_${index + 1}`);
    const setDatabase = database ? `process.env.DATABASE_URL_POSTGRES = ${JSON.stringify(database)};\n` : "";
    writeFileSync(entry, `${setDatabase}await import(${JSON.stringify(worker)});\n`);
    entries.push(entry);
  }
  const child = spawn(
    process.execPath,
    [
      "--enable-source-maps",
      // In every worker: one that does not exit after its files fails instead of hanging the run.
      `--import=${join(import.meta.dirname, "test-file-watchdog.mjs")}`,
      "--test",
      // Each file fails after ten minutes (scripts/test-worker.mjs); this bounds a whole worker, in
      // case something blocks it where no timer can fire.
      "--test-timeout=3600000",
      `--test-concurrency=${group.workers}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${join(import.meta.dirname, "skip-reporter.mjs")}`,
      `--test-reporter-destination=${join(logDir, `${group.name}.jsonl`)}`,
      ...entries,
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: workerEnv(queue, group) },
  );
  // Whole lines only: two groups writing at once must not cut each other's lines in half.
  createInterface({ input: child.stdout }).on("line", (line) => console.log(line));
  return new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)));
}

const started = Date.now();
const statuses =
  concurrency >= 2
    ? await Promise.all(groups.map(runGroup))
    : await groups.reduce(
        async (done, group) => [...(await done), await runGroup(group)],
        Promise.resolve([]),
      );
const seconds = Math.round((Date.now() - started) / 1000);
await dropDatabase().catch((error) => console.error(`Could not drop the test database: ${error.message}`));

/** The JSON lines of a file under logDir (none when it was never written). */
function jsonLines(name) {
  const path = join(logDir, name);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
const skips = groups.flatMap((group) => jsonLines(`${group.name}.jsonl`));
const done = groups.flatMap((group) => jsonLines(join(group.name, "done.jsonl")));
// A worker that crashed, or was killed by the watchdog, leaves the rest of its file and of the queue
// to the others; a file no worker finished has not passed.
const unfinished = files.filter((file) => !done.some((line) => line.file === file));
const slowest = [...done].sort((a, b) => b.ms - a.ms).slice(0, 10);
rmSync(logDir, { recursive: true, force: true });

/** A compiled test file's source path. */
const sourceOf = (file) =>
  relative(process.cwd(), file)
    .replace(/^dist\//, "")
    .replace(/\.js$/, ".ts");
const cpuSeconds = done.reduce((sum, line) => sum + line.cpuMs, 0) / 1000;
console.log(
  `\n${files.length} file(s) in ${seconds} s; the slowest (wall and CPU time of each; the files' tests ` +
    `took ${Math.round(cpuSeconds)} s of CPU in all, module loading not counted):`,
);
for (const { file, ms, cpuMs } of slowest) {
  const wall = (ms / 1000).toFixed(1).padStart(6);
  console.log(`  ${wall} s ${(cpuMs / 1000).toFixed(1).padStart(6)} s  ${sourceOf(file)}`);
}
// TEST_TIMINGS=<file> keeps every file's times (JSON lines, slowest first), to compare two runs.
if (process.env.TEST_TIMINGS) {
  const lines = [...done].sort((a, b) => b.ms - a.ms);
  writeFileSync(
    process.env.TEST_TIMINGS,
    lines.map(({ file, ms, cpuMs }) => `${JSON.stringify({ file: sourceOf(file), ms, cpuMs })}\n`).join(""),
  );
}
if (unfinished.length > 0) {
  console.error(`\n${unfinished.length} file(s) did not finish (their worker ended first):`);
  for (const file of unfinished) console.error(`  ${sourceOf(file)}`);
}

if (skips.length > 0) {
  const byReason = new Map();
  for (const skip of skips) byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
  const suites = skips.filter((skip) => skip.suite).length;
  const counted = `${skips.length - suites} test(s)${suites > 0 ? ` and ${suites} whole suite(s)` : ""}`;
  console.log(`\nSkipped ${counted}:`);
  // Most first, then by reason: workers finish files in no fixed order, the summary keeps one.
  const reasons = [...byReason].sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b));
  for (const [reason, list] of reasons) {
    console.log(`  ${list.length} because ${reason}:`);
    for (const skip of list) {
      const where = skip.file ? `${relative(process.cwd(), skip.file)}: ` : "";
      console.log(`    ${where}${skip.name}${skip.suite ? " (a whole suite)" : ""}`);
    }
  }
}
// A test of a fast path's own behaviour skips itself when EVENTGRAPH_FAST_PATHS turns that path
// off (test/helpers/test-services.ts, fastPathOff): the run on the plain path expects those.
// hadolint cannot be installed on this project's machines (test/ops/deploy-files.test.ts says why).
const allowed = [/^fast path [a-z-]+ is off$/, /^hadolint is not on PATH$/];
const unexpected = skips.filter((skip) => !allowed.some((reason) => reason.test(skip.reason)));
if (process.env.CI === "true" && unexpected.length > 0) {
  console.error("CI=true: nothing may be skipped in CI, so the run fails.");
  process.exit(1);
}
process.exit(statuses.every((status) => status === 0) && unfinished.length === 0 ? 0 : 1);
