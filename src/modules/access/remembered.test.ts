import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Remembered, rememberedForMs } from "./remembered.js";

describe("what is remembered about access", () => {
  test("is forgotten once the epoch moves", () => {
    let epoch = 1;
    const remembered = new Remembered<string>(() => epoch);
    remembered.keep("token", remembered.now(), "app");
    assert.deepEqual(remembered.recall("token", remembered.now())?.value, "app");
    epoch = 2;
    assert.equal(remembered.recall("token", remembered.now()), undefined);
  });

  test("is never recalled while the epoch is unknown (fail closed)", () => {
    let epoch: number | undefined = 1;
    const remembered = new Remembered<string>(() => epoch);
    remembered.keep("token", 1, "app");
    epoch = undefined;
    assert.equal(remembered.now(), undefined);
    assert.equal(remembered.recall("token", remembered.now()), undefined);
    remembered.keep("other", remembered.now(), "app");
    epoch = 1;
    assert.equal(remembered.recall("other", 1), undefined, "kept under an unknown epoch");
  });

  test("is forgotten after its lifetime even while the epoch stands still", () => {
    let now = 1_000;
    const remembered = new Remembered<string>(() => 7, { clock: { now: () => now } });
    remembered.keep("token", 7, "app");
    now += rememberedForMs - 1;
    assert.equal(remembered.recall("token", 7)?.value, "app");
    now += 2;
    assert.equal(remembered.recall("token", 7), undefined);
  });

  test("remembers nothing when switched off", () => {
    const remembered = new Remembered<string>(() => 1, { enabled: false });
    assert.equal(remembered.now(), undefined);
    remembered.keep("token", remembered.now(), "app");
    assert.equal(remembered.recall("token", 1), undefined);
  });
});
