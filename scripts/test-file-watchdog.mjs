// Loaded into every test file's process (`--import`, scripts/test.mjs). A file whose tests have all
// finished but which leaves something open (a server a failed test never closed, a timer) would
// keep its process, and with it the whole run, alive for ever. Once the file's own `after` hooks
// have run, this gives it a grace period to exit; past it, it names what is still open and exits
// with an error, so the run ends and says which file hung.
import { after } from "node:test";

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
