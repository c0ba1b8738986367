import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ChangelogEntry, repositoryRoot } from "./schema-history.js";

/** Where `npm run build` writes the schema changelog (src/docs/build-changelog.ts). */
export const changelogFile = join(repositoryRoot, "dist", "schema-changelog.json");

/**
 * The changelog the build generated from git history; undefined when it was built without that
 * history (a shallow or exported copy, no git) or not generated at all. The server never runs git.
 */
export function readChangelogFile(): ChangelogEntry[] | undefined {
  try {
    return (JSON.parse(readFileSync(changelogFile, "utf8")) as ChangelogEntry[] | null) ?? undefined;
  } catch {
    return undefined;
  }
}
