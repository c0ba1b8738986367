import { AppError, ErrorCode } from "../errors.js";
import type { Db, Tx } from "./database.js";

// The deadline of the request an actor object belongs to. The API builds one actor object per
// request, so the object is the key; nothing is kept once the request is gone.
const deadlines = new WeakMap<object, AbortSignal>();

/** Ties a request's actor to the signal that fires when the request is cut off (too slow). */
export function bindDeadline(actor: object, signal: AbortSignal): void {
  deadlines.set(actor, signal);
}

/**
 * Runs `work` in one transaction. If the request `actor` acts for was cut off meanwhile, the
 * transaction is rolled back instead of committed: the client was told its write did not happen.
 */
export function inTransaction<T>(
  db: Db,
  actor: object | undefined,
  work: (trx: Tx) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await work(trx);
    if (actor && deadlines.get(actor)?.aborted) {
      throw new AppError(ErrorCode.TIMEOUT, "The request took too long; its changes were rolled back");
    }
    return result;
  });
}
