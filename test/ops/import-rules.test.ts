import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { repoRoot } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";

/** Runs scripts/lint-imports.mjs over a tree of the given TypeScript files and returns its output. */
function lintTree(files: Record<string, string>): { code: number | null; output: string } {
  const root = temporaryFolder("import-rules-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [join(repoRoot, "scripts/lint-imports.mjs")], {
    cwd: root,
    encoding: "utf8",
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("scripts/lint-imports.mjs", () => {
  test("finds an import cycle made of type-only imports, which compiled JavaScript no longer shows", () => {
    const { code, output } = lintTree({
      "src/a.ts": 'import type { B } from "./b.js";\nexport type A = { b?: B };\n',
      "src/b.ts": 'import { type A } from "./a.js";\nexport type B = { a?: A };\n',
      "src/c.ts": 'import type { A } from "./a.js";\nexport type C = A;\n',
    });
    assert.equal(code, 1);
    assert.match(output, /^no-circular: src\/a\.ts -> src\/b\.ts -> src\/a\.ts$/m);
    assert.doesNotMatch(output, /no-circular: .*src\/c\.ts/);
  });

  test("keeps src/graphql/ from importing a module's types, and a repository to its module", () => {
    const { code, output } = lintTree({
      "src/graphql/layer.ts":
        'import type { Session } from "../modules/agenda/agenda.graphql.js";\nexport type S = Session;\n',
      "src/modules/agenda/agenda.graphql.ts": "export type Session = { id: string };\n",
      "src/modules/agenda/agenda.repository.ts":
        "export const rows = () => [];\nexport type Row = { id: string };\n",
      "src/modules/tickets/reads.ts":
        'import { rows } from "../agenda/agenda.repository.js";\nexport const all = rows;\n',
      "src/modules/tickets/shapes.ts":
        'import type { Row } from "../agenda/agenda.repository.js";\nexport type R = Row;\n',
    });
    assert.equal(code, 1);
    assert.match(
      output,
      /graphql-layer-does-not-assemble: src\/graphql\/layer\.ts -> src\/modules\/agenda\/agenda\.graphql\.ts/,
    );
    assert.match(output, /repositories-are-private: src\/modules\/tickets\/reads\.ts -> /);
    // A row type runs no SQL: only value imports break the repository rule.
    assert.doesNotMatch(output, /repositories-are-private: src\/modules\/tickets\/shapes\.ts/);
  });

  test("names an import it cannot resolve", () => {
    const { output } = lintTree({
      "src/a.ts": 'import { gone } from "./gone.js";\nexport const a = gone;\n',
    });
    assert.match(output, /src\/a\.ts: cannot resolve \.\/gone\.js/);
  });
});
