import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { generateToken, hashToken, isWellFormedToken, tokenLast4, tokenPrefix } from "./tokens.js";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Another base62 character at `index`, so the token keeps its shape and only the content changes.
function withCharReplaced(token: string, index: number): string {
  const current = token[index] as string;
  const replacement = base62[(base62.indexOf(current) + 1) % base62.length] as string;
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe("tokens", () => {
  test("rejects tokens with a wrong prefix, length or alphabet", () => {
    const token = generateToken();
    for (const bad of [
      "",
      "evg_",
      token.slice(0, -1),
      `${token}0`,
      `ghp_${token.slice(4)}`,
      token.toUpperCase(),
      `${token.slice(0, 10)}-${token.slice(11)}`,
      ` ${token}`,
      `Bearer ${token}`,
    ]) {
      assert.equal(isWellFormedToken(bad), false, JSON.stringify(bad));
    }
  });

  test("rejects every single-character typo and every swap of two neighbours", () => {
    const token = generateToken();
    for (let i = tokenPrefix.length; i < token.length; i++) {
      assert.equal(isWellFormedToken(withCharReplaced(token, i)), false, `typo at ${i}`);
    }
    for (let i = tokenPrefix.length; i < token.length - 1; i++) {
      if (token[i] === token[i + 1]) continue;
      const swapped = token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2);
      assert.equal(isWellFormedToken(swapped), false, `swap at ${i}`);
    }
  });

  test("generates evg_ + 32 random base62 characters + a 6-character checksum, never twice", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const token = generateToken();
      assert.match(token, /^evg_[0-9A-Za-z]{38}$/);
      assert.ok(isWellFormedToken(token));
      seen.add(token);
    }
    assert.equal(seen.size, 500);
  });

  test("stores a SHA-256 hex hash and shows the last 4 characters", () => {
    const token = generateToken();
    assert.match(hashToken(token), /^[0-9a-f]{64}$/);
    assert.equal(hashToken(token), hashToken(token));
    assert.notEqual(hashToken(token), hashToken(generateToken()));
    // The FIPS 180-2 test vector: the stored form is plain SHA-256, comparable by any tool.
    assert.equal(hashToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(tokenLast4(token), token.slice(-4));
    assert.equal(tokenLast4(token).length, 4);
  });
});
