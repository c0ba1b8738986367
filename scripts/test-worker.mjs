// One worker process of a test run: scripts/test.mjs has node:test run a few of these (one per core)
// instead of one process per test file. A worker takes the next file from its group's queue, imports
// it inside a suite named after it, waits for that suite (the file's tests and `after` hooks) to end,
// and takes the next, until the queue is empty. The app's modules load once per worker instead of
// once per file, about 1.5 s of CPU each time. Taking files from a shared queue, rather than a
// fixed share of them, keeps both workers busy to the end whichever files turn out slow.
//
// What a file could count on alone and must not lose here: it runs after the previous file's hooks
// have closed what they opened; a file that fails to load, or whose tests fail or time out, fails
// its own suite and the worker goes on; TEST_FILE names it for the skips test/helpers registers.
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { after, describe } from "node:test";
import { pathToFileURL } from "node:url";
import { openAfter } from "./test-file-watchdog.mjs";

const own = process.env.TEST_QUEUE;
if (!own) throw new Error("TEST_QUEUE is not set: scripts/test.mjs starts the workers");
// Its group's queue, then (TEST_QUEUE_AFTER) another group's whose files it may help with once its
// own are done: only a queue of the same run (a folder beside its own), since a worker started by a
// test inherits the variable of the run that test is in, whose files are not its to take.
const helping = process.env.TEST_QUEUE_AFTER;
const queues = [own, helping && dirname(helping) === dirname(own) ? helping : undefined]
  .filter(Boolean)
  .map((dir) => ({ dir, files: JSON.parse(readFileSync(join(dir, "files.json"), "utf8")), next: 0 }));
// As alone, a file fails after ten minutes: a test awaiting something that never comes (the
// longest file takes a few minutes).
const fileTimeoutMs = 600_000;

/**
 * The next unclaimed file and its queue, claimed for this worker (mkdir is atomic), or undefined when
 * none is left in any of its queues.
 */
function claim() {
  for (const queue of queues) {
    for (; queue.next < queue.files.length; queue.next++) {
      try {
        mkdirSync(join(queue.dir, `claimed-${queue.next}`));
        return { queue: queue.dir, file: queue.files[queue.next++] };
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
      }
    }
  }
  return undefined;
}

for (let claimed = claim(); claimed !== undefined; claimed = claim()) {
  const { queue, file } = claimed;
  const source = relative(process.cwd(), file)
    .replace(/^dist\//, "")
    .replace(/\.js$/, ".ts");
  process.env.TEST_FILE = source;
  const openBefore = openAfter();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => {
    describe(source, { timeout: fileTimeoutMs }, async () => {
      try {
        await import(pathToFileURL(file).href);
      } finally {
        // Registered last, so it runs after the file's own `after` hooks.
        after(resolve);
      }
    });
  });
  const used = process.cpuUsage(cpu);
  const line = {
    file,
    pid: process.pid,
    ms: Math.round(performance.now() - started),
    cpuMs: Math.round((used.user + used.system) / 1000),
    // What the file left open (servers, sockets, timers): named if the worker then cannot exit.
    leftOpen: openAfter().filter((kind) => {
      const index = openBefore.indexOf(kind);
      if (index === -1) return true;
      openBefore.splice(index, 1);
      return false;
    }),
  };
  appendFileSync(join(queue, "done.jsonl"), `${JSON.stringify(line)}\n`);
}
