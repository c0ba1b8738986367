import assert from "node:assert/strict";
import { test } from "node:test";
import { rememberedPerValue, weightedMembers } from "./header-values.js";

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

test("reads a weighted list's members in order, lower-cased, with q defaulting to 1 and garbage to 0", () => {
  assert.deepEqual(weightedMembers("Application/JSON;q=0.9, text/html ; q=0 ,br;q=x,*"), [
    { name: "application/json", q: 0.9 },
    { name: "text/html", q: 0 },
    { name: "br", q: 0 },
    { name: "*", q: 1 },
  ]);
});
