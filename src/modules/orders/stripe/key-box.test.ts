import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { keyBox } from "./key-box.js";

describe("the key box that seals providers' keys", () => {
  const box = keyBox("a server secret of at least thirty-two characters");

  test("opens only what it sealed, for the project it sealed it for", () => {
    const sealed = box.seal("aB3x", "sk_test_51abcdefghij");
    assert.ok(!sealed.includes("sk_test"), "the key is not readable in the stored text");
    assert.notEqual(box.seal("aB3x", "sk_test_51abcdefghij"), sealed, "a fresh IV each time");
    assert.equal(box.open("aB3x", sealed), "sk_test_51abcdefghij");
    // Copied into another project's row, or opened under another server key: nothing.
    assert.equal(box.open("zZ9y", sealed), undefined);
    assert.equal(keyBox("another server secret, also thirty-two+ chars").open("aB3x", sealed), undefined);
  });

  test("refuses tampered or garbage text instead of throwing", () => {
    const sealed = box.seal("aB3x", "whsec_abcdefghijkl");
    const [version, iv, tag, body = ""] = sealed.split(".");
    const flipped = `${body.slice(0, -2)}${body.endsWith("A") ? "B" : "A"}${body.slice(-1)}`;
    for (const bad of [`${version}.${iv}.${tag}.${flipped}`, "v1.x.y.z", "v2.a.b.c", "", "v1..."]) {
      assert.equal(box.open("aB3x", bad), undefined, bad);
    }
  });
});
