import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { crc32 } from "./crc32.js";

describe("crc32", () => {
  test("computes the standard CRC-32 of text and bytes", () => {
    // The check value of CRC-32/ISO-HDLC, the variant zlib and GitHub's token checksum use.
    assert.equal(crc32("123456789"), 0xcbf43926);
    assert.equal(crc32(Buffer.from("123456789")), 0xcbf43926);
    assert.equal(crc32(""), 0);
  });

  test("continues from a previous value as gzip's trailer needs, and agrees with zlib", () => {
    const text = Buffer.from("héllo, wörld ".repeat(100));
    const whole = crc32(text);
    assert.equal(crc32(text.subarray(700), crc32(text.subarray(0, 700))), whole);
    const gzip = gzipSync(text);
    assert.equal(gzip.readUInt32LE(gzip.length - 8), whole);
  });
});
