#!/usr/bin/env node
// The import rules of .dependency-cruiser.cjs (no cycles, src/graphql/ never assembles the API,
// repositories private to their module), checked over the JavaScript tsc just wrote to dist/:
// dependency-cruiser cannot parse TypeScript 7 sources itself. Only compiled files whose source
// still exists are cruised, so a stale file in dist/ cannot report a cycle that is gone.
// Violations recorded in .dependency-cruiser-known-violations.json (each pending on another
// branch, see docs/decisions.md) are reported as known; any other one fails `npm run lint`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { cruise } from "dependency-cruiser";

function compiled(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return compiled(path);
    if (!entry.name.endsWith(".js")) return [];
    const source = path.replace(/^dist\//, "").replace(/\.js$/, "");
    return existsSync(`${source}.ts`) || existsSync(`${source}.tsx`) ? [path] : [];
  });
}

const files = ["dist/src", "dist/test", "dist/bench"].flatMap(compiled);
const { forbidden, options } = createRequire(import.meta.url)("../.dependency-cruiser.cjs");
const known = JSON.parse(readFileSync(".dependency-cruiser-known-violations.json", "utf8"));
const result = await cruise(files, {
  ...options,
  validate: true,
  ruleSet: { forbidden },
  knownViolations: known,
  outputType: "err-long",
});
process.stdout.write(result.output);
const errors = result.exitCode;
if (errors > 0) process.exit(1);
console.log(`Import rules: ${files.length} compiled files checked, no new violation.`);
