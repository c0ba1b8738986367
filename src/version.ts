import { readFileSync } from "node:fs";

/**
 * This release's semantic version, read once from package.json: the one place it is written, so
 * `eventgraph --version`, `/healthz` and the published package cannot disagree (CHANGELOG.md's top
 * entry is checked against it by test/ops/release.test.ts).
 */
export const version: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
