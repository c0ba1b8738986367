import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { changelogFile } from "./changelog-file.js";
import { schemaChangelog } from "./schema-history.js";

/**
 * Generates the schema changelog from the history of schema.graphql into dist/, so the server
 * only reads a file. Without git history it writes null, and the page says so: such a copy still
 * builds and serves.
 */
export async function writeChangelogFile(): Promise<void> {
  const entries = await schemaChangelog();
  mkdirSync(dirname(changelogFile), { recursive: true });
  writeFileSync(changelogFile, `${JSON.stringify(entries ?? null)}\n`);
}

// `node dist/src/docs/build-changelog.js`, a step of `npm run build` and of `npm start`'s rebuild.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeChangelogFile();
  console.log(`Wrote the schema changelog to ${changelogFile}`);
}
