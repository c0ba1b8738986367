import { setFlagsFromString } from "node:v8";

/**
 * V8's settings in a process that serves requests (not a cluster's primary, which only forks and
 * watches), set by `launch` before the server's code is loaded. A flag the operator gave on the
 * command line, either way round, wins.
 */
export function setV8Flags(): void {
  for (const [name, setting] of Object.entries(serverFlags)) {
    if (process.execArgv.some((arg) => arg.startsWith(`--${name}`) || arg.startsWith(`--no-${name}`)))
      continue;
    setFlagsFromString(setting);
  }
}

const serverFlags: Record<string, string> = {
  /*
   * The old generation may grow to 1.4× what survived the last full collection before the next one,
   * instead of V8's own factor (up to 4× for a process that allocates fast, as a server under load
   * does). Live data is ~50 MB, but under 50 connections of misses the heap sized itself to the
   * allocation rate and the process peaked far above its live data; with this it stays under 250 MB,
   * for a few per cent more CPU per uncached page (docs/performance.md, "Known bounds"). A growth factor, not a
   * limit: more live data still gets the room it needs, where --max-old-space-size would crash.
   */
  "heap-growing-percent": "--heap-growing-percent=40",
  /*
   * No allocation-site pretenuring. V8 allocates the objects of an object or array literal directly
   * in the old generation once most of those it sampled survived a young collection. In a server
   * that decision is made during start-up and warm-up, and it sticks. In some processes (from a fifth
   * to all of them, by batch of starts) literals made on every request were then old from birth, and
   * each held young objects of its request alive through young collections, by the old-to-young
   * pointers such a collection must treat as live. So the request's objects (about 5 KiB of a small
   * query: Node's nextTick records, write-queue entries, the request and response) were promoted,
   * and left for a full mark-compact to find: young collections cost four to five times as much,
   * and a full one ran every two seconds under load. A request's objects die young; with the flag
   * off, no process settles in that regime.
   */
  "allocation-site-pretenuring": "--no-allocation-site-pretenuring",
};
