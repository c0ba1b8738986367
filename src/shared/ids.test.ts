import assert from "node:assert/strict";
import { test } from "node:test";
import { newId } from "./ids.js";

test("ids made within one millisecond sort in the order they were made", () => {
  // A thousand ids take well under a few milliseconds: most share their millisecond.
  const ids = Array.from({ length: 1000 }, () => newId());
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids)
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
