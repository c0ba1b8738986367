import { setFlagsFromString } from "node:v8";

/**
 * V8 settings of a server process, set before the server's code is loaded (from `launch`).
 *
 * **No allocation-site pretenuring.** V8 allocates the objects of an object or array literal
 * directly in the old generation once most of those it sampled survived a young collection. In a
 * server that decision is made during start-up and warm-up, and it sticks. In some processes (from a
 * fifth to all of them, by batch of starts) literals made on every request were then old from birth,
 * and each held young objects of its request alive through young collections, by the old-to-young
 * pointers such a collection must treat as live. So the request's objects (about 5 KiB of a small
 * query: Node's nextTick records, write-queue entries, the request and response) were promoted, and
 * left for a full mark-compact to find: young collections cost four to five times as much, and a
 * full one ran every two seconds under load. A request's objects die young; with the flag off, no
 * process settles in that regime (docs/performance.md, round fourteen).
 */
export function setV8Flags(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}
