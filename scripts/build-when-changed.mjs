#!/usr/bin/env node
// Builds only when a source changed since the last build. `npm test` runs it for the whole build
// (`npm run build`): `npm ci` has just built through `prepare`, and a second build of the same
// sources cost about half a minute of a newcomer's first `npm ci && npm test`. `npm start` asks the
// same question for the server's build alone (scripts/start.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(import.meta.dirname, "..");

/** The newest modification time under `path`; folders count too, so a deleted file is seen. */
function newest(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry !== "node_modules") latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

/**
 * Whether the build must run: one of `outputs` (paths under the repository, written by the build)
 * is missing, or something under `inputs` changed after the last of them was written: what a build
 * writes at its very end, every time it succeeds, so a build stopped half-way counts as none.
 */
export function buildIsStale(inputs, outputs) {
  const written = outputs.map((path) => join(root, path));
  if (!written.every(existsSync)) return true;
  const built = statSync(written.at(-1)).mtimeMs;
  const sources = inputs.map((path) => join(root, path)).filter(existsSync);
  return Math.max(...sources.map(newest)) > built;
}

/** What every build reads besides its own folder's sources. */
export const buildFiles = [
  "schema.graphql",
  "schema.2026-12-01.graphql",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const inputs = [
    "src",
    "test",
    "bench",
    "examples",
    "scripts/build-bundles.mjs",
    "scripts/build-explorer.mjs",
  ];
  // The compiled server, and the last thing `npm run build` writes.
  const outputs = ["dist/src/main.js", "dist/schema-changelog.json", "dist/explorer/graphql.worker.js"];
  if (buildIsStale([...inputs, ...buildFiles], outputs)) {
    const build = spawnSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
    process.exit(build.status ?? 1);
  }
  console.log("No source changed since the last build (npm run build): not building again.");
}
