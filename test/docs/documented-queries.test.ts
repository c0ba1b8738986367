import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { type DocumentNode, parse, validate } from "graphql";
import { schema } from "../../src/api-schema.js";

/** A query found in a document: where, and its text. */
interface DocumentedQuery {
  file: string;
  line: number;
  text: string;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

/**
 * Every ```graphql block, and the `query` of every curl body written as '{"query":…}' (shell
 * splices such as '$EVENT' or '"${person%%:*}"' stand for a value and become X), of a file.
 */
function documentedQueries(file: string): DocumentedQuery[] {
  const text = readFileSync(file, "utf8");
  const found: DocumentedQuery[] = [];
  for (const m of text.matchAll(/```graphql\n([\s\S]*?)```/g)) {
    found.push({ file, line: lineOf(text, m.index), text: m[1] ?? "" });
  }
  for (const m of text.matchAll(/'(\{"query"(?:[^'\n]|'"[^"\n]*"'|'\$\w+')*\})'/g)) {
    const body = (m[1] ?? "").replace(/'"[^"\n]*"'|'\$\w+'/g, "X");
    let query: unknown;
    try {
      query = (JSON.parse(body) as { query?: unknown }).query;
    } catch (error) {
      assert.fail(`${file}:${lineOf(text, m.index)}: the curl body is not JSON (${String(error)}): ${body}`);
    }
    assert.equal(typeof query, "string", `${file}:${lineOf(text, m.index)}: no query`);
    found.push({ file, line: lineOf(text, m.index), text: query as string });
  }
  return found;
}

// Issue 38: the getting-started guide's `projects { nodes … }` failed with GRAPHQL_VALIDATION_FAILED.
// Every query the README and the guides show is now parsed and validated against the real schema.
describe("every query in the README and the guides is valid against the real schema", () => {
  const files = ["README.md", ...readdirSync("docs/guides").map((f) => `docs/guides/${f}`)].filter((f) =>
    f.endsWith(".md"),
  );
  const queries = files.flatMap(documentedQueries);
  const api = schema();

  test("finds the documents' queries (so a broken extractor cannot pass by finding none)", () => {
    assert.ok(queries.length >= 14, `only ${queries.length} queries found`);
    for (const file of ["README.md", "docs/guides/01-getting-started.md", "docs/guides/04-pagination.md"]) {
      assert.ok(
        queries.some((q) => q.file === file),
        `no query found in ${file}`,
      );
    }
  });

  for (const query of queries) {
    test(`${query.file}:${query.line} ${query.text.replace(/\s+/g, " ").slice(0, 60)}`, () => {
      let document: DocumentNode;
      try {
        document = parse(query.text);
      } catch (error) {
        assert.fail(`does not parse: ${String(error)}`);
      }
      assert.deepEqual(
        validate(api, document).map((e) => e.message),
        [],
      );
    });
  }
});
