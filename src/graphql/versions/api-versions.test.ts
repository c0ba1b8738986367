import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { chooseVersion, findVersion, selectionIn, sunsetOf } from "./api-versions.js";

const old = findVersion("2026-09-01");
const newest = findVersion("2026-12-01");

describe("API versions", () => {
  test("a version answers until 12 months after the next one's release; the newest has no end", () => {
    assert.ok(old && newest);
    assert.equal(sunsetOf(old), "2027-12-01");
    assert.equal(sunsetOf(newest), undefined);
  });

  test("past its sunset a version is refused when asked for, and a pin to it falls forward", () => {
    const before = new Date("2027-11-30T23:59:59Z");
    const after = new Date("2027-12-01T00:00:00Z");
    assert.deepEqual(chooseVersion("2026-09-01", undefined, before), { ok: true, version: old });
    const refused = chooseVersion("2026-09-01", undefined, after);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.message, /use one of 2026-12-01$/);
    assert.deepEqual(chooseVersion(undefined, "2026-09-01", before), { ok: true, version: old });
    assert.deepEqual(chooseVersion(undefined, "2026-09-01", after), { ok: true, version: newest });
    // Without a header or a pin: the oldest still answered.
    assert.deepEqual(chooseVersion(undefined, undefined, before), { ok: true, version: old });
    assert.deepEqual(chooseVersion(undefined, undefined, after), { ok: true, version: newest });
  });

  test("spells a selection written for the newest version as an older one does, on its own type only", () => {
    assert.ok(old && newest);
    const selection = "id name capacity price { capacity } capacityNote";
    assert.equal(
      selectionIn(old, "TicketType", selection),
      "id name quantity price { capacity } capacityNote",
    );
    assert.equal(selectionIn(old, "Room", "id capacity"), "id capacity");
    assert.equal(selectionIn(newest, "TicketType", selection), selection);
  });
});
