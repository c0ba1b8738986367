import type { Tx } from "../../db/database.js";
import { AppError, badInput, ErrorCode } from "../../errors.js";
import {
  codeKey,
  covers,
  type DiscountCode,
  isValidAt,
  presentDiscountCode,
} from "./discount-codes.model.js";
import { discountCodesRepository as repo } from "./discount-codes.repository.js";

// How an order uses a code, inside the order's transaction: finding what the buyer typed, counting
// its uses, giving them back when the order closes. Orders call these; the order decides access.

/** One ticket type of an order, as the code sees it. */
interface CodedLine {
  ticketTypeId: string;
  quantity: number;
}

const refusal = (message: string) => badInput([{ field: ["discountCode"], message }]);

/**
 * The code a buyer typed (any case), valid at `now`, or a refusal on the `discountCode` field. An
 * unknown code and one outside its window answer alike, so the page does not confirm that a code
 * exists before it opens.
 */
export async function findCode(trx: Tx, projectId: string, text: string, now: string): Promise<DiscountCode> {
  const row = await repo.findByKey(trx, projectId, codeKey(text));
  const code = row ? presentDiscountCode(row) : undefined;
  if (!code || !isValidAt(code, now)) throw refusal("is not a valid code for this event");
  return code;
}

/** The tickets of an order a code applies to (the uses it counts). */
function usesIn(code: Pick<DiscountCode, "ticketTypeIds">, lines: readonly CodedLine[]): number {
  return lines.reduce((sum, line) => sum + (covers(code, line.ticketTypeId) ? line.quantity : 0), 0);
}

/**
 * Counts an order's uses of a code, or refuses: a code that applies to none of its tickets, more of
 * them than the code allows per order, or more than it has left (checked and counted in one
 * statement, so parallel orders never pass the limit).
 */
export async function claimUses(
  trx: Tx,
  code: DiscountCode,
  lines: readonly CodedLine[],
  now: string,
): Promise<number> {
  const uses = usesIn(code, lines);
  if (uses === 0) throw refusal("does not apply to the tickets chosen");
  if (code.maxPerOrder !== null && uses > code.maxPerOrder)
    throw refusal(`applies to at most ${code.maxPerOrder} tickets per order`);
  if (!(await repo.claim(trx, code.projectId, code.id, uses, now)))
    throw new AppError(ErrorCode.CONFLICT, "This code has been used up", {
      fieldErrors: [{ field: ["discountCode"], message: "has been used up" }],
    });
  return uses;
}

/**
 * Counts the uses of a closed order again (a late payment reinstating it), under the same limit;
 * false when the code has no uses left (a deleted code counts nothing and refuses nothing).
 */
export async function reclaimUses(
  trx: Tx,
  projectId: string,
  codeId: string,
  lines: readonly CodedLine[],
  now: string,
): Promise<boolean> {
  const row = await repo.find(trx, projectId, codeId);
  if (!row) return true;
  return repo.claim(trx, projectId, codeId, usesIn(presentDiscountCode(row), lines), now);
}

/** Gives back the uses of an order that was cancelled or expired (a deleted code: nothing). */
export async function releaseUses(
  trx: Tx,
  projectId: string,
  codeId: string,
  lines: readonly CodedLine[],
  now: string,
): Promise<void> {
  const row = await repo.find(trx, projectId, codeId);
  if (!row) return;
  await repo.release(trx, projectId, codeId, usesIn(presentDiscountCode(row), lines), now);
}
