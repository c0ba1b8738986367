#!/usr/bin/env node
// Writes the API schema, printed and sorted, to schema.graphql at the repository root. Run it after
// changing the schema (`npm run build && node scripts/print-schema.mjs`) and commit the result: the
// diff shows every API change in review, and the schema-evolution test compares history with it.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const { printedSchema } = await import("../dist/src/api-schema.js");
const target = fileURLToPath(new URL("../schema.graphql", import.meta.url));
writeFileSync(target, printedSchema());
console.log(`Wrote ${target}`);
