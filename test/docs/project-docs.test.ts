import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, test } from "node:test";
import { repoRoot } from "../helpers/processes.js";

// The project's own Markdown (README.md and docs/*.md; the guides are pages with tests of their
// own): what a reader follows must lead somewhere. Sections move when a page is rewritten (issue
// 36 replaced two journals by their conclusions), and a link or a quoted section name left behind
// is a dead end nobody notices.

const docsDir = join(repoRoot, "docs");
const pages = [
  join(repoRoot, "README.md"),
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(docsDir, name)),
];

/** The text of a page without its fenced code blocks, where links and quotes are examples. */
function prose(path: string): string {
  return readFileSync(path, "utf8").replace(/^```[\s\S]*?^```/gm, "");
}

function headings(path: string): string[] {
  return [...prose(path).matchAll(/^#{1,6} +(.+?) *$/gm)].map((match) => match[1] as string);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

const name = (path: string) => relative(repoRoot, path);

describe("the project's Markdown", () => {
  test("every relative link leads to a file, and every anchor to a heading of it", () => {
    const dead: string[] = [];
    for (const page of pages) {
      for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split("#") as [string, string | undefined];
        const path = file === "" ? page : join(dirname(page), file);
        if (!existsSync(path)) dead.push(`${name(page)}: ${target} (no such file)`);
        else if (anchor && path.endsWith(".md") && !headings(path).map(anchorOf).includes(anchor))
          dead.push(`${name(page)}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(dead, []);
  });

  test('every section quoted as `docs/<page>.md, "<heading>"` is a heading of that page', () => {
    const dead: string[] = [];
    for (const page of pages) {
      for (const [quote, file, section] of prose(page).matchAll(/\b(?:docs\/)?([\w-]+\.md),\s+"([^"]+)"/g)) {
        const path = join(docsDir, file as string);
        const found =
          existsSync(path) && headings(path).some((h) => h.toLowerCase() === section?.toLowerCase());
        if (!found) dead.push(`${name(page)}: ${quote.replace(/\s+/g, " ")}`);
      }
    }
    assert.deepEqual(dead, []);
  });

  test("each page stays readable: under 800 lines, performance.md under 300", () => {
    for (const page of pages.filter((path) => path.startsWith(docsDir))) {
      const lines = readFileSync(page, "utf8").split("\n").length;
      const max = name(page) === "docs/performance.md" ? 300 : 800;
      assert.ok(lines <= max, `${name(page)} has ${lines} lines, more than ${max}`);
    }
  });

  test("decisions.md says why of every dependency in package.json", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    const decisions = readFileSync(join(docsDir, "decisions.md"), "utf8");
    const named = new Set([...decisions.matchAll(/\*\*([^*\s]+)\*\*/g)].map((match) => match[1]));
    const packages = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
    assert.deepEqual(
      packages.filter((dependency) => !named.has(dependency)),
      [],
    );
  });
});
