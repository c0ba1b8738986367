#!/usr/bin/env node
// `npm start`: builds only when a source changed since the last build, then runs the server in
// this process. Recompiling on every start cost ~15 s; a fresh clone (`npm ci` builds through
// `prepare`) or an unchanged tree starts at once.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { buildFiles, buildIsStale } from "./build-when-changed.mjs";

const root = join(import.meta.dirname, "..");
// The first and the last thing `npm run build:server` writes.
const stale = buildIsStale(["src", ...buildFiles], ["dist/src/main.js", "dist/schema-changelog.json"]);

if (stale) {
  console.error("Sources changed since the last build: compiling (npm run build:server)…");
  const started = Date.now();
  const build = spawnSync("npm", ["run", "--silent", "build:server"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.error(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

await import("../dist/src/main.js");
