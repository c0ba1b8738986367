import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { sqliteEngine } from "../helpers/engines.js";
import { createUser } from "../helpers/factories.js";
import { repoRoot } from "../helpers/processes.js";
import { postgresMissing } from "../helpers/requirements.js";
import { createTestContext } from "../helpers/test-services.js";

/** Runs scripts/test.mjs on `files` with Redis pointed at a closed port (and `env`'s changes). */
function runWithoutRedis(
  ci: boolean,
  files = ["src/graphql/limits/rate-limiter.test"],
  changes: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_URL_TEST: "redis://127.0.0.1:1", ...changes };
  // The child decides by itself what is missing: none of the suite's own settings leak in.
  // TEST_TIMINGS too: the outer run's timings file is not this small run's to overwrite.
  for (const name of ["CI", "DATABASE_URL_POSTGRES", "NODE_TEST_CONTEXT", "TEST_TIMINGS"]) delete env[name];
  if (ci) Object.assign(env, { CI: "true", DATABASE_URL_POSTGRES: process.env.DATABASE_URL_POSTGRES });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/test.mjs", ...files], { cwd: repoRoot, env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Runs one test file, written to a temporary folder, under the watchdog every file of a run has. */
function runUnderWatchdog(
  source: string,
  signal: AbortSignal,
  options: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; output: string; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-watchdog-"));
  const file = join(dir, "probe.test.mjs");
  writeFileSync(file, source);
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_EXIT_GRACE_MS: "300" };
  // Not this run's: the probe is no file of this run's workers.
  for (const name of ["NODE_TEST_CONTEXT", "TEST_QUEUE", "TEST_FILE"]) delete env[name];
  Object.assign(env, options.env);
  const watchdog = join(repoRoot, "scripts", "test-file-watchdog.mjs");
  const args = [`--import=${watchdog}`, "--test", ...(options.args ?? []), file];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, signal });
    child.on("error", () => {}); // aborted by the test's timeout: the close below still resolves
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, output, file });
    });
  });
}

const opensAServer = `
import net from "node:net";
import { after, test } from "node:test";
const server = net.createServer();
test("listens", () => new Promise((resolve) => server.listen(0, "127.0.0.1", resolve)));
`;

describe("scripts/test.mjs", () => {
  // Without the watchdog this file would hang: the timeout turns that into a failure.
  test("a file that leaves a server open fails, naming it, instead of hanging the run", {
    timeout: 30_000,
  }, async (t) => {
    const { code, output, file } = await runUnderWatchdog(opensAServer, t.signal);
    assert.equal(code, 1, output);
    assert.ok(output.includes(`${file}: its tests finished`), output);
    assert.match(output, /still open: TCPServerWrap/);
    assert.match(output, /# pass 1\n/);
  });

  test("a file that closes what it opened in its after hook passes", async (t) => {
    const { code, output } = await runUnderWatchdog(
      `${opensAServer}after(() => new Promise((resolve) => server.close(resolve)));\n`,
      t.signal,
    );
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /did not exit/);
  });

  // The account throttles used to fail their `before` hook without Redis, cancelling five tests and
  // leaving a server open for a minute; without Chromium, six browser files failed the same way.
  test("counts a missing Redis or Chromium as named skips, lists them at the end, and ends", async () => {
    const { code, output } = await runWithoutRedis(
      false,
      [
        "src/graphql/limits/rate-limiter.test",
        "test/api/account-throttle.test",
        "test/browser/first-user.test",
      ],
      { CHROMIUM_PATH: "/nonexistent" },
    );
    assert.equal(code, 0, output);
    // The child runs without PostgreSQL: the account throttles' file says so too.
    assert.match(output, /ℹ skipped 4\n/);
    assert.match(output, /Skipped 4 test\(s\):\n {2}2 because Redis at 127\.0\.0\.1:1 did not answer/);
    assert.match(output, /rate limiter \(Redis\) in src\/graphql\/limits\/rate-limiter\.test\.ts/);
    assert.match(output, /account throttles, shared through Redis in test\/api\/account-throttle\.test\.ts/);
    assert.match(output, /1 because no Chromium at \/nonexistent/);
    assert.match(output, /a first user's small things in Chromium in test\/browser\/first-user\.test\.ts/);
    // Every file's wall time is measured, the slowest named.
    assert.match(output, /3 file\(s\) in \d+ s; the slowest/);
    assert.match(output, / s {2}test\/api\/account-throttle\.test\.ts\n/);
  });

  test("a browser that will not start fails its file at once, closing the server it started", async () => {
    // /bin/false exists, so the suite runs, and Chromium's launch fails.
    const { code, output } = await runWithoutRedis(false, ["test/browser/first-user.test"], {
      CHROMIUM_PATH: "/bin/false",
      TEST_EXIT_GRACE_MS: "5000",
    });
    assert.equal(code, 1, output);
    assert.match(output, /browserType\.launch/);
    assert.doesNotMatch(output, /did not exit/);
  });

  test("lists a skipped suite, which node:test's own count leaves out", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "eventgraph-skips-"));
    try {
      const log = join(dir, "skips.jsonl");
      const reporter = join(repoRoot, "scripts", "skip-reporter.mjs");
      const { code, output } = await runUnderWatchdog(
        `import { describe, test } from "node:test";\ndescribe("held back", { skip: "no tmpfs" }, () => { test("inner", () => {}); });\n`,
        t.signal,
        { args: [`--test-reporter=${reporter}`, `--test-reporter-destination=${log}`] },
      );
      assert.equal(code, 0, output);
      const lines = readFileSync(log, "utf8").trim().split("\n");
      assert.equal(lines.length, 1, lines.join("\n"));
      const { file, ...skip } = JSON.parse(lines[0] ?? "");
      assert.deepEqual(skip, { name: "held back", reason: "no tmpfs", suite: true });
      assert.match(file, /probe\.test\.mjs$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // In CI the runner first insists on PostgreSQL; with it, the missing Redis is what fails the run.
  test("fails the run in CI instead of skipping", { skip: postgresMissing() }, async () => {
    const { code, output } = await runWithoutRedis(true);
    assert.equal(code, 1, output);
    assert.match(output, /CI=true, so this cannot be skipped: Redis at 127\.0\.0\.1:1/);
  });
});

describe("test contexts on SQLite", () => {
  // Migrating a fresh SQLite file took a few hundred milliseconds, and the suite makes hundreds.
  test("start as copies of the run's migrated template, each a file of its own", async () => {
    const template = process.env.SQLITE_TEMPLATE_TEST;
    assert.ok(template, "scripts/test.mjs names the run's template");
    const migrations = (url: string) =>
      new Database(url.slice("sqlite:".length), { readonly: true })
        .prepare("select name, timestamp from kysely_migration order by name")
        .all();
    const first = await createTestContext(sqliteEngine);
    const second = await createTestContext(sqliteEngine);
    try {
      // Copied, not migrated again: the same migration rows, timestamps included.
      assert.deepEqual(migrations(first.config.databaseUrl), migrations(`sqlite:${template}`));
      assert.ok(migrations(first.config.databaseUrl).length > 10);
      await createUser(first.services, { email: "only-here@example.test" });
      assert.ok(await first.services.users.findByEmail("only-here@example.test"));
      assert.equal(await second.services.users.findByEmail("only-here@example.test"), undefined);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
