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
// When the statement that ran last began. better-sqlite3 runs one statement at a time, to its end,
// so the statement a check follows is the one that began last; the loop was held from its start.
// (Counted from the check instead, the first statement of a turn went unseen: two 50 ms counts ran
// back to back before the loop got round.)
let lastStatementStart = 0;

/** Right before a statement runs on better-sqlite3 (sqlite-direct.ts, sqlite-lock-wait.ts). */
export function statementStarts(): void {
  lastStatementStart = performance.now();
}

function loopHeldMs(): number {
  const now = performance.now();
  if (heldSince === undefined) {
    heldSince = Math.min(now, lastStatementStart);
    setImmediate(() => {
      heldSince = undefined;
    });
  }
  return now - heldSince;
}

// Requests waiting to go on after a yield, resumed one per turn of the loop: resumed together, two
// requests with a 50 ms statement each held the loop 100 ms between two turns.
const waiting: (() => void)[] = [];
function resumeOne(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(resumeOne);
}

/** After a statement: back to the event loop if it has been held `yieldAfterMs` (see above), else on. */
export function yieldIfLoopHeld(): Promise<void> | undefined {
  if (loopHeldMs() < yieldAfterMs) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(resumeOne);
  });
}
