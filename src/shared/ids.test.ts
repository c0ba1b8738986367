import assert from "node:assert/strict";
import { test } from "node:test";
import { newId } from "./ids.js";

test("ids made within one millisecond sort in the order they were made", () => {
  // A thousand ids take well under a few milliseconds: most share their millisecond. They also
  // span several draws of the random pool (256 ids each).
  const ids = Array.from({ length: 1000 }, () => newId());
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids)
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test("an id carries the millisecond it was made in, and the random bits are drawn anew for each", async () => {
  const before = Date.now();
  const first = newId();
  await new Promise((resolve) => setTimeout(resolve, 3));
  const second = newId();
  const msOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
  assert.ok(msOf(first) >= before && msOf(first) < msOf(second) && msOf(second) <= Date.now());
  // The last 40 bits are random alone: 300 ids (more than one draw of 4 KiB) share none.
  const tails = Array.from({ length: 300 }, () => newId().slice(-10));
  assert.equal(new Set(tails).size, tails.length);
});
