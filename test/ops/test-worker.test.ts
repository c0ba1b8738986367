import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../helpers/processes.js";

interface Done {
  file: string;
  ms: number;
  cpuMs: number;
  leftOpen: string[];
}

/**
 * Runs test files (name → source, written to a temporary folder, queued in that order) in one
 * worker of scripts/test.mjs, under the watchdog every worker has.
 */
function runInWorker(
  sources: Record<string, string>,
  signal: AbortSignal,
): Promise<{ code: number | null; output: string; done: Done[]; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-worker-"));
  const files = Object.entries(sources).map(([name, source]) => {
    writeFileSync(join(dir, name), source);
    return join(dir, name);
  });
  writeFileSync(join(dir, "files.json"), JSON.stringify(files));
  const entry = join(dir, "worker-1.mjs");
  const worker = pathToFileURL(join(repoRoot, "scripts", "test-worker.mjs")).href;
  writeFileSync(entry, `import ${JSON.stringify(worker)};\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_QUEUE: dir, TEST_EXIT_GRACE_MS: "300" };
  // Not this run's: the probe files are no files of this run's workers.
  for (const name of ["NODE_TEST_CONTEXT", "TEST_FILE"]) delete env[name];
  const watchdog = join(repoRoot, "scripts", "test-file-watchdog.mjs");
  const args = [`--import=${watchdog}`, "--test", "--test-reporter=spec", entry];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, signal });
    child.on("error", () => {}); // aborted by the test's timeout: the close below still resolves
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => {
      const log = join(dir, "done.jsonl");
      const done = existsSync(log)
        ? readFileSync(log, "utf8")
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as Done)
        : [];
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, output, done, dir });
    });
  });
}

describe("scripts/test-worker.mjs", () => {
  test("runs its files one after another, each after the previous one's hooks; one that fails to load fails alone", {
    timeout: 30_000,
  }, async (t) => {
    const { code, output, done, dir } = await runInWorker(
      {
        "first.test.mjs": `import { after, test } from "node:test";
test("first", () => {});
after(async () => { await new Promise((resolve) => setTimeout(resolve, 100)); globalThis.firstClosed = true; });
`,
        "broken.test.mjs": `throw new Error("broken on purpose");\n`,
        "last.test.mjs": `import assert from "node:assert/strict";
import { test } from "node:test";
test("last, after the first file closed", () => assert.equal(globalThis.firstClosed, true));
test("named by TEST_FILE", () => assert.match(process.env.TEST_FILE, /last\\.test\\.mjs$/));
`,
      },
      t.signal,
    );
    assert.equal(code, 1, output);
    assert.match(output, /broken on purpose/);
    assert.match(output, /# pass 3\n|ℹ pass 3\n/);
    assert.match(output, /✔ last, after the first file closed/);
    assert.deepEqual(
      done.map((line) => line.file),
      ["first.test.mjs", "broken.test.mjs", "last.test.mjs"].map((name) => join(dir, name)),
    );
    assert.ok(done.every((line) => line.ms >= 0 && line.cpuMs >= 0));
  });

  test("a worker that does not exit names the file that left something open", {
    timeout: 30_000,
  }, async (t) => {
    const { code, output } = await runInWorker(
      {
        "closes.test.mjs": `import { test } from "node:test";\ntest("closes", () => {});\n`,
        "leaks.test.mjs": `import net from "node:net";
import { test } from "node:test";
const server = net.createServer();
test("listens", () => new Promise((resolve) => server.listen(0, "127.0.0.1", resolve)));
`,
      },
      t.signal,
    );
    assert.equal(code, 1, output);
    assert.match(output, /still open: TCPServerWrap/);
    assert.match(output, /opened by: \S*leaks\.test\.mjs \(TCPServerWrap\)\n/);
    assert.doesNotMatch(output, /opened by: .*closes\.test\.mjs/);
  });
});
