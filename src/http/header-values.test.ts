import assert from "node:assert/strict";
import { test } from "node:test";
import { rememberedPerValue } from "./header-values.js";

test("decides once per header value, undecided ones included, and forgets the oldest past its bound", () => {
  const asked: string[] = [];
  const decide = rememberedPerValue((value: string) => {
    asked.push(value);
    return value === "none" ? undefined : value.length;
  }, 2);
  assert.equal(decide("gzip"), 4);
  assert.equal(decide("gzip"), 4);
  assert.equal(decide("none"), undefined);
  assert.equal(decide("none"), undefined);
  assert.deepEqual(asked, ["gzip", "none"]);
  // A third value pushes out the least recently used one, which is then decided again.
  assert.equal(decide("br"), 2);
  assert.equal(decide("gzip"), 4);
  assert.deepEqual(asked, ["gzip", "none", "br", "gzip"]);
  // A long value is decided every time, never kept.
  const long = "x".repeat(300);
  decide(long);
  decide(long);
  assert.deepEqual(asked.slice(4), [long, long]);
});
