#!/usr/bin/env node
// Writes the schema of every API version, printed and sorted, to its snapshot file at the repository
// root (schema.graphql for the first version, schema.<version>.graphql for each later one). Run it
// after changing the schema (`npm run build && node scripts/print-schema.mjs`) and commit the
// result: the diff shows every API change in review, per version, and the schema-evolution test
// compares each version's history with it.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { printedSchema } = await import("../dist/src/api-schema.js");
const { apiVersions, snapshotFile } = await import("../dist/src/graphql/versions/api-versions.js");
for (const version of apiVersions) {
  const target = fileURLToPath(new URL(`../${snapshotFile(version)}`, import.meta.url));
  writeFileSync(target, printedSchema(version));
  console.log(`Wrote ${target} (${version.name})`);
}
