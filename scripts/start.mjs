#!/usr/bin/env node
// `npm start`: builds only when a source changed since the last build, then runs the server in
// this process. Recompiling on every start cost ~15 s; a fresh clone (`npm ci` builds through
// `prepare`) or an unchanged tree starts at once.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
// The build's last step writes the changelog, so its time is when the last build succeeded.
const stamp = join(root, "dist", "schema-changelog.json");

/** The newest modification time under `path`; folders count too, so a deleted file is seen. */
function newest(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const inputs = ["src", "schema.graphql", "tsconfig.json", "package.json", "package-lock.json"].map((p) =>
  join(root, p),
);
const stale =
  !existsSync(stamp) ||
  !existsSync(join(root, "dist", "src", "main.js")) ||
  Math.max(...inputs.filter(existsSync).map(newest)) > statSync(stamp).mtimeMs;

if (stale) {
  console.error("Sources changed since the last build: compiling (npm run build:server)…");
  const started = Date.now();
  const build = spawnSync("npm", ["run", "--silent", "build:server"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.error(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

await import("../dist/src/main.js");
