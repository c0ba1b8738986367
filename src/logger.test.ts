import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { createLogger, lazyChildLogger } from "./logger.js";

// A destination that keeps every line written to it, parsed.
function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe("per-request logger", () => {
  test("writes nothing below the process's level", () => {
    const { lines, stream } = capture();
    const child = lazyChildLogger(createLogger("warn", stream), { reqId: "r1" }, {});
    child.info("not written");
    child.debug({ a: 1 }, "not written either");
    assert.equal(child.level, "warn");
    assert.deepEqual(lines, []);
  });

  test("writes enabled lines with the request's bindings and the process's redaction", () => {
    const { lines, stream } = capture();
    const child = lazyChildLogger(createLogger("info", stream), { reqId: "r2" }, {});
    child.info({ headers: { authorization: "Bearer evg_secret" } }, "request seen");
    child.error("failed");
    child.child({ step: "two" }).warn("nested");
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.step]),
      [
        ["r2", "request seen", undefined],
        ["r2", "failed", undefined],
        ["r2", "nested", "two"],
      ],
    );
    assert.deepEqual(lines[0]?.headers, { authorization: "[redacted]" });
  });

  test("honours a route's own level", () => {
    const { lines, stream } = capture();
    const child = lazyChildLogger(createLogger("info", stream), { reqId: "r3" }, { level: "warn" });
    child.info("quiet route");
    child.warn("still loud");
    assert.deepEqual(
      lines.map((l) => l.msg),
      ["still loud"],
    );
  });
});
