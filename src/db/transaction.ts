import { AppError, ErrorCode } from "../errors.js";
import { DiskFullError, isDiskFullError } from "./availability.js";
import type { Db, Tx } from "./database.js";
import { commitOf, failedIn } from "./sqlite-group-commit.js";

/**
 * Whether a request has been cut off (too slow): set once, by the request's executor. A plain
 * object, not an AbortSignal: nothing listens for it, and an AbortController (an EventTarget) per
 * executed operation cost more than the flag it carries.
 */
export interface Deadline {
  passed: boolean;
  /**
   * A transaction of the request has finished its work and waits for the COMMIT of its group
   * (sqlite-group-commit.ts), which can no longer be taken back: the request is then answered when
   * it ends, not with TIMEOUT.
   */
  committing: boolean;
}

// The deadline of the request an actor object belongs to. The API builds one actor object per
// request, so the object is the key; nothing is kept once the request is gone.
const deadlines = new WeakMap<object, Deadline>();

/** Ties a request's actor to its deadline. */
export function bindDeadline(actor: object, deadline: Deadline): void {
  deadlines.set(actor, deadline);
}

// What each transaction of a request writes besides its work, by the request's actor (see bindCommitMark).
const commitMarks = new WeakMap<object, (trx: Tx) => Promise<void>>();

/**
 * Has every transaction that `actor`'s request runs through `inTransaction` also run `mark` inside it,
 * after its work: a record that the request changed something commits with the change or not at all.
 * An Idempotency-Key's run marks its key (graphql/idempotency.ts), so a retry after a crash between
 * COMMIT and the stored answer is told so instead of running the mutation a second time.
 */
export function bindCommitMark(actor: object, mark: (trx: Tx) => Promise<void>): void {
  commitMarks.set(actor, mark);
}

// What to do once a transaction of `inTransaction` has committed, by its handle (see afterCommit).
const commitActions = new WeakMap<Tx, (() => void)[]>();

/**
 * Runs `action` once the transaction `trx` has committed, never when it rolls back: the way a
 * recorder inside a write says "tell someone when this is visible" (the outbox wakes the webhook
 * dispatcher only after a write that queued a delivery). `trx` must come from `inTransaction`.
 */
export function afterCommit(trx: Tx, action: () => void): void {
  const actions = commitActions.get(trx);
  if (!actions) throw new Error("afterCommit needs a transaction begun by inTransaction");
  actions.push(action);
}

/**
 * Runs `work` in one transaction. If the request `actor` acts for was cut off meanwhile, the
 * transaction is rolled back instead of committed: the client was told its write did not happen.
 */
export async function inTransaction<T>(
  db: Db,
  actor: object | undefined,
  work: (trx: Tx) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // Per attempt: a rolled-back attempt's actions are dropped with it.
    const actions: (() => void)[] = [];
    let commit: Promise<void> | undefined;
    const deadline = actor ? deadlines.get(actor) : undefined;
    const mark = actor ? commitMarks.get(actor) : undefined;
    try {
      const committed = await db.transaction().execute(async (trx) => {
        commitActions.set(trx, actions);
        let result: T;
        try {
          result = await work(trx);
          if (mark) await mark(trx);
        } catch (error) {
          failedIn(trx, error);
          throw error;
        }
        if (deadline?.passed) {
          throw new AppError(ErrorCode.TIMEOUT, "The request took too long; its changes were rolled back");
        }
        // On SQLite the COMMIT may carry the transactions queued behind this one (sqlite-group-commit.ts).
        // Told in the same turn as the check above, so a deadline passes either before or not at all.
        commit = commitOf(trx);
        if (commit && deadline) deadline.committing = true;
        return result;
      });
      try {
        await commit;
      } finally {
        if (deadline) deadline.committing = false;
      }
      for (const action of actions) action();
      return committed;
    } catch (error) {
      if (isDiskFullError(error)) throw new DiskFullError(error);
      if (attempt >= maxBusyRetries || !isSqliteSnapshotBusy(error)) throw error;
      // Rolled back, so running `work` again is safe; a little jitter lets the other writer finish.
      await new Promise((resolve) => setTimeout(resolve, attempt * 20 + Math.random() * 30));
    }
  }
}

const maxBusyRetries = 5;

// SQLite's busy_timeout makes a writer wait for the lock, except when a transaction that began by
// reading must become a writer after another connection (the CLI, another server process) committed:
// its snapshot is stale and SQLite answers SQLITE_BUSY at once. The transaction is rolled back, and
// a fresh attempt reads the new data (PostgreSQL waits on row locks instead).
function isSqliteSnapshotBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}
