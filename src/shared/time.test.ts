import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fromWallClock, zonedClock, zonedClocks, zonedDay, zoneOffsetMs } from "./time.js";

describe("zoned times", () => {
  test("reads an instant's wall clock in a zone, across the date line and midnight", () => {
    assert.equal(zonedDay("2026-03-29T00:30:00Z", "Europe/Berlin"), "2026-03-29");
    assert.equal(zonedClock("2026-03-29T00:30:00Z", "Europe/Berlin"), "01:30");
    assert.equal(zonedDay("2026-05-04T23:30:00Z", "Europe/Berlin"), "2026-05-05");
    assert.equal(zonedDay("2026-05-04T23:30:00Z", "America/Los_Angeles"), "2026-05-04");
    assert.equal(zonedClock("2026-05-04T23:05:00Z", "Asia/Kolkata"), "04:35");
    assert.equal(zonedClock("2026-05-04T00:00:00Z", "UTC"), "00:00", "midnight is 00, not 24");
  });

  test("finds the offset and turns a wall clock into its instant around DST", () => {
    assert.equal(zoneOffsetMs("Europe/Berlin", Date.parse("2026-01-10T12:00:00Z")), 3_600_000);
    assert.equal(zoneOffsetMs("Europe/Berlin", Date.parse("2026-07-10T12:00:00Z")), 7_200_000);
    const instant = (wall: string, zone: string) =>
      new Date(fromWallClock(Date.parse(wall), zone)).toISOString();
    assert.equal(instant("2026-03-29T01:30:00Z", "Europe/Berlin"), "2026-03-29T00:30:00.000Z");
    assert.equal(instant("2026-03-29T03:30:00Z", "Europe/Berlin"), "2026-03-29T01:30:00.000Z");
    // 02:30 does not exist that night: it lands an hour on, at 03:30 summer time.
    assert.equal(instant("2026-03-29T02:30:00Z", "Europe/Berlin"), "2026-03-29T01:30:00.000Z");
    assert.equal(instant("2026-10-25T12:00:00Z", "America/New_York"), "2026-10-25T16:00:00.000Z");
  });

  test("many instants' wall clocks at once equal each asked alone, across DST changes", () => {
    // Berlin and New York change by an hour, Lord Howe by half an hour, Kathmandu never (+05:45).
    for (const zone of ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"]) {
      const clockOf = zonedClocks(zone);
      for (const [from, to] of [
        ["2026-03-28T00:00:00Z", "2026-03-30T00:00:00Z"],
        ["2026-04-04T00:00:00Z", "2026-04-06T00:00:00Z"],
        ["2026-10-03T00:00:00Z", "2026-10-05T00:00:00Z"],
        ["2026-10-24T00:00:00Z", "2026-11-02T00:00:00Z"],
      ] as const) {
        for (let t = Date.parse(from); t < Date.parse(to); t += 15 * 60_000) {
          const alone = `${zonedDay(t, zone)}T${zonedClock(t, zone)}`;
          assert.equal(clockOf(t), alone, `${zone} ${new Date(t).toISOString()}`);
        }
      }
    }
  });

  test("refuses an unknown zone", () => {
    assert.throws(() => zonedDay("2026-05-04T00:00:00Z", "Mars/Olympus"), RangeError);
  });
});
