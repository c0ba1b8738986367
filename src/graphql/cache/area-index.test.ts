import assert from "node:assert/strict";
import { test } from "node:test";
import { allAreas, areaBit } from "../../shared/data-areas.js";
import { AreaIndex } from "./area-index.js";

test("a write's areas list only the keys that read them, so it visits only what it drops", () => {
  const index = new AreaIndex();
  // Many answers of the project's settings, one attendee page, one agenda page of two projects.
  for (let i = 0; i < 1000; i++) index.add(`name-${i}`, ["AAAA"], areaBit.project);
  index.add("people", ["AAAA"], areaBit.project | areaBit.attendees | areaBit.checkins);
  index.add("agenda", ["AAAA", "BBBB"], areaBit.project | areaBit.agenda);
  assert.deepEqual(index.keysReading("AAAA", areaBit.checkins), ["people"]);
  assert.deepEqual(index.keysReading("AAAA", areaBit.agenda | areaBit.checkins).sort(), ["agenda", "people"]);
  assert.deepEqual(index.keysReading("BBBB", areaBit.checkins), []);
  assert.deepEqual(index.keysReading("BBBB", areaBit.agenda), ["agenda"]);
  assert.equal(index.keysReading("AAAA", allAreas).length, 1002, "a key listed once, however many areas");
  assert.deepEqual(index.keysReading("CCCC", allAreas), []);
});

test("a removed key is gone from every area and project it was listed under", () => {
  const index = new AreaIndex();
  const areas = areaBit.agenda | areaBit.tickets;
  index.add("page", ["AAAA", "BBBB"], areas);
  index.add("other", ["BBBB"], areaBit.tickets);
  index.remove("page", ["AAAA", "BBBB"], areas);
  assert.deepEqual(index.keysReading("AAAA", allAreas), []);
  assert.deepEqual(index.keysReading("BBBB", allAreas), ["other"]);
  // The copy it returned is the caller's: removing while walking it misses nothing.
  const keys = index.keysReading("BBBB", allAreas);
  for (const key of keys) index.remove(key, ["BBBB"], areaBit.tickets);
  assert.deepEqual(index.keysReading("BBBB", allAreas), []);
});
