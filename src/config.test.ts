import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, loadConfig } from "./config.js";

const fastPathsOf = (value: string | undefined) =>
  loadConfig(value === undefined ? {} : { EVENTGRAPH_FAST_PATHS: value }).fastPaths;

// Every switch, named once here as the README names them.
const names = ["hit-lane", "group-commit", "projection", "execution-slots", "jit", "remembered-credentials"];

describe("EVENTGRAPH_FAST_PATHS", () => {
  test("unset (or empty), every fast path is on", () => {
    for (const value of [undefined, ""]) {
      assert.deepEqual(Object.keys(fastPathsOf(value)), names);
      assert.ok(Object.values(fastPathsOf(value)).every((on) => on));
    }
  });

  test("`off` turns every one off, the reserved remembered-credentials included", () => {
    const off = fastPathsOf("off");
    assert.ok(Object.values(off).every((on) => !on));
    assert.equal(off["remembered-credentials"], false);
  });

  test("`-name` turns only the named ones off", () => {
    const some = fastPathsOf("-hit-lane, -group-commit");
    assert.equal(some["hit-lane"], false);
    assert.equal(some["group-commit"], false);
    assert.equal(some.jit, true);
    assert.equal(some.projection, true);
  });

  test("an unknown name, a name without its `-`, or `on` is refused: a typo must not leave a switch on", () => {
    for (const value of ["-hit-lanes", "hit-lane", "on", "-jit,", "off,-jit", "-jit;-projection"]) {
      assert.throws(() => fastPathsOf(value), ConfigError, value);
    }
  });
});
