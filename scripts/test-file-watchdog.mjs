// Loaded into every test file's process (`--import`, scripts/test.mjs). A file whose tests have all
// finished but which leaves something open (a server a failed test never closed, a timer) would
// keep its process, and with it the whole run, alive for ever. Once the file's own `after` hooks
// have run, this gives it a grace period to exit; past it, it names what is still open and exits
// with an error, so the run ends and says which file hung.
//
// With TEST_FILE_TIMINGS set, it also appends the file's wall time, from its process's start (module
// loading included) to its exit, to that file: scripts/test.mjs names the slowest files with it.
import { appendFileSync } from "node:fs";
import { after } from "node:test";

// Only in the processes node:test starts for the files, not in the runner itself.
if (process.env.TEST_FILE_TIMINGS && process.env.NODE_TEST_CONTEXT) {
  const timings = process.env.TEST_FILE_TIMINGS;
  process.once("exit", () => {
    const line = { file: process.argv[1], ms: Math.round(performance.now()) };
    appendFileSync(timings, `${JSON.stringify(line)}\n`);
  });
}

const graceMs = Number(process.env.TEST_EXIT_GRACE_MS ?? 60_000);

after(() => {
  // Registered on the root test before any file registers its own hooks; the timer starts here and
  // is unref'd, so it never holds the process open itself.
  setTimeout(() => {
    // The file's own standard streams are always open: what is left is what it leaked.
    const open = process.getActiveResourcesInfo().filter((kind) => kind !== "TTYWrap" && kind !== "PipeWrap");
    process.stderr.write(
      `\n${process.argv[1]}: its tests finished ${graceMs / 1000} s ago but the process did not exit; ` +
        `still open: ${open.join(", ") || "(nothing reported)"}\n`,
    );
    process.exit(1);
  }, graceMs).unref();
});
