#!/usr/bin/env node
// Writes docs/roles.md from the policy (build first: it reads the compiled module). The test
// test/api/roles.test.ts fails when the committed file and the policy disagree.
import { writeFileSync } from "node:fs";
import { renderRoleTable } from "../dist/src/modules/access/policy.js";

writeFileSync(new URL("../docs/roles.md", import.meta.url), renderRoleTable());
console.log("docs/roles.md written");
