import assert from "node:assert/strict";
import { AppError } from "../../src/errors.js";

/** Asserts that `promise` fails with BAD_USER_INPUT naming exactly these fields (dot paths). */
export async function rejectsWithFieldErrors(promise: Promise<unknown>, fields: string[]): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, "BAD_USER_INPUT");
    const named = (error.details.fieldErrors ?? []).map((e) => e.field.join("."));
    assert.deepEqual([...new Set(named)].sort(), [...fields].sort());
    return true;
  });
}
