import assert from "node:assert/strict";
import { test } from "node:test";
import { spreadsheetSafe } from "./spreadsheet-safe.js";

test("a cell a spreadsheet would run as a formula gets a leading quote, in every form it reads", () => {
  for (const cell of [
    "=HYPERLINK(1)",
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tx",
    "\rx",
    "\uFF1DHYPERLINK(1)", // full-width equals
    "\uFF0B1",
    "\uFF0D1",
    "\uFF20SUM(A1)",
    "\u200B=HYPERLINK(1)", // zero-width space
    "\uFEFF=HYPERLINK(1)", // byte order mark
    "\u2060\u200D=1",
    " =1",
  ]) {
    assert.equal(spreadsheetSafe(cell), `'${cell}`, JSON.stringify(cell));
  }
  for (const cell of ["Ada Lovelace", "ada@example.com", "a=b", "", "\u200Bplain", "１２"]) {
    assert.equal(spreadsheetSafe(cell), cell, JSON.stringify(cell));
  }
});
