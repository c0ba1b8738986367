// Loaded into every test process (`--import`, scripts/test.mjs): each worker, and each file run on
// its own. A process whose tests have all finished but which leaves something open (a server a failed
// test never closed, a timer) would keep itself, and with it the whole run, alive for ever. Once the
// root's `after` hooks have run, this gives it a grace period to exit; past it, it names what is
// still open, and in a worker (scripts/test-worker.mjs) the files after which it was opened, and
// exits with an error, so the run ends and says which file hung.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after } from "node:test";

const graceMs = Number(process.env.TEST_EXIT_GRACE_MS ?? 60_000);

/** What this process has open besides its own standard streams (which are always open). */
export function openAfter() {
  return process.getActiveResourcesInfo().filter((kind) => kind !== "TTYWrap" && kind !== "PipeWrap");
}

/** The files this worker ran that left something open, from its queue's log (none outside a worker). */
function suspects() {
  const log = process.env.TEST_QUEUE && join(process.env.TEST_QUEUE, "done.jsonl");
  if (!log || !existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((done) => done.pid === process.pid && done.leftOpen.length > 0)
    .map((done) => `${done.file} (${done.leftOpen.join(", ")})`);
}

after(() => {
  // Registered on the root test before any file registers its own hooks; the timer starts here and
  // is unref'd, so it never holds the process open itself.
  setTimeout(() => {
    const open = openAfter();
    const named = suspects();
    process.stderr.write(
      `\n${process.argv[1]}: its tests finished ${graceMs / 1000} s ago but the process did not exit; ` +
        `still open: ${open.join(", ") || "(nothing reported)"}\n` +
        (named.length > 0 ? `opened by: ${named.join("; ")}\n` : ""),
    );
    process.exit(1);
  }, graceMs).unref();
});
