/**
 * better-sqlite3 runs each statement synchronously, and the statements of one request follow each
 * other as promise continuations, which never let the event loop run: a request of many statements
 * held every other request (and /healthz) until it finished. So a statement returns to the event
 * loop once the loop has been held `yieldAfterMs` since it last got round (docs/security.md): a stall
 * is bounded by that plus the longest single statement. Not after every statement: under load each
 * return waits a whole turn of the loop behind every other request's work, and a check-in's
 * transaction (six short statements, holding the one connection) then spanned six turns.
 */
const yieldAfterMs = 2;
// When the loop last got round to this module's check (see heldSince); undefined once it has.
let heldSince: number | undefined;
function loopHeldMs(): number {
  const now = performance.now();
  if (heldSince === undefined) {
    heldSince = now;
    setImmediate(() => {
      heldSince = undefined;
    });
  }
  return now - heldSince;
}

/** After a statement: back to the event loop if it has been held `yieldAfterMs` (see above), else on. */
export function yieldIfLoopHeld(): Promise<void> | undefined {
  return loopHeldMs() >= yieldAfterMs ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
}
