import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { repoRoot } from "../helpers/processes.js";
import { postgresMissing } from "../helpers/requirements.js";

/** Runs scripts/test.mjs on the rate limiter's tests with Redis pointed at a closed port. */
function runWithoutRedis(ci: boolean): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_URL_TEST: "redis://127.0.0.1:1" };
  // The child decides by itself what is missing: none of the suite's own settings leak in.
  for (const name of ["CI", "DATABASE_URL_POSTGRES", "NODE_TEST_CONTEXT"]) delete env[name];
  if (ci) Object.assign(env, { CI: "true", DATABASE_URL_POSTGRES: process.env.DATABASE_URL_POSTGRES });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/test.mjs", "src/graphql/limits/rate-limiter.test"], {
      cwd: repoRoot,
      env,
    });
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
): Promise<{ code: number | null; output: string; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-watchdog-"));
  const file = join(dir, "probe.test.mjs");
  writeFileSync(file, source);
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_EXIT_GRACE_MS: "300" };
  delete env.NODE_TEST_CONTEXT;
  const watchdog = join(repoRoot, "scripts", "test-file-watchdog.mjs");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--import=${watchdog}`, "--test", file], { env, signal });
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

  test("counts a missing Redis as a named skip, lists it at the end, and ends", async () => {
    const { code, output } = await runWithoutRedis(false);
    assert.equal(code, 0, output);
    assert.match(output, /ℹ skipped 1\n/);
    assert.match(output, /Skipped 1 test\(s\):\n {2}1 because Redis at 127\.0\.0\.1:1 did not answer/);
    assert.match(output, /rate limiter \(Redis\) in src\/graphql\/limits\/rate-limiter\.test\.ts/);
  });

  // In CI the runner first insists on PostgreSQL; with it, the missing Redis is what fails the run.
  test("fails the run in CI instead of skipping", { skip: postgresMissing() }, async () => {
    const { code, output } = await runWithoutRedis(true);
    assert.equal(code, 1, output);
    assert.match(output, /CI=true, so this cannot be skipped: Redis at 127\.0\.0\.1:1/);
  });
});
