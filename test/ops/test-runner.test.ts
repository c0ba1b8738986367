import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { repoRoot } from "../helpers/processes.js";
import { postgresMissing } from "../helpers/requirements.js";

/** Runs scripts/test.mjs on the signals tests with Redis pointed at a closed port. */
function runWithoutRedis(ci: boolean): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_URL_TEST: "redis://127.0.0.1:1" };
  // The child decides by itself what is missing: none of the suite's own settings leak in.
  for (const name of ["CI", "DATABASE_URL_POSTGRES", "NODE_TEST_CONTEXT"]) delete env[name];
  if (ci) Object.assign(env, { CI: "true", DATABASE_URL_POSTGRES: process.env.DATABASE_URL_POSTGRES });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/test.mjs", "src/cluster/signals.test"], {
      cwd: repoRoot,
      env,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("scripts/test.mjs", () => {
  test("counts a missing Redis as a named skip, lists it at the end, and ends", async () => {
    const { code, output } = await runWithoutRedis(false);
    assert.equal(code, 0, output);
    assert.match(output, /ℹ skipped 1\n/);
    assert.match(output, /Skipped 1 test\(s\):\n {2}1 because Redis at 127\.0\.0\.1:1 did not answer/);
    assert.match(output, /signals \(Redis\) in src\/cluster\/signals\.test\.ts/);
  });

  // In CI the runner first insists on PostgreSQL; with it, the missing Redis is what fails the run.
  test("fails the run in CI instead of skipping", { skip: postgresMissing() }, async () => {
    const { code, output } = await runWithoutRedis(true);
    assert.equal(code, 1, output);
    assert.match(output, /CI=true, so this cannot be skipped: Redis at 127\.0\.0\.1:1/);
  });
});
