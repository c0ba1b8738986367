import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAttendeeCsv } from "./attendees-csv.js";

// Issue 39: the import preview of a 30,000-column CSV held the event loop for 0.6–1.9 s.
test("a CSV with more than 200 columns is refused when read, naming the line; 200 are fine", async () => {
  const header = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(",");
  // One-letter columns: 30,000 of them fit the 64 KB a record may have.
  const wide = `${Array(30_000).fill("a").join(",")}\nAda,ada@example.test\n`;
  await assert.rejects(parseAttendeeCsv(wide), (error: { code?: string; details?: unknown }) => {
    assert.equal(error.code, "BAD_USER_INPUT");
    assert.match(JSON.stringify(error.details), /has 30,000 columns on line 1; an import takes at most 200/);
    return true;
  });
  const late = `name,email\nAda,ada@example.test\n${header(201)}\n`;
  await assert.rejects(parseAttendeeCsv(late), { code: "BAD_USER_INPUT", message: /line 3/ });
  const parsed = await parseAttendeeCsv(`${header(200)}\n${"x,".repeat(199)}x\n`);
  assert.equal(parsed.headers.length, 200);
  assert.equal(parsed.rows[0]?.cells.length, 200);
});
