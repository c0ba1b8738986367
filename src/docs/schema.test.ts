import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from "graphql";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { printedSchema, schema } from "../api-schema.js";
import { apiVersions, snapshotFile } from "../graphql/versions/api-versions.js";
import {
  breakingChanges,
  historyViolations,
  removalDate,
  repositoryRoot,
  schemaChangelog,
  schemaFile,
  schemaRevisions,
  unannouncedBreakingChanges,
} from "./schema-history.js";

const base = `
type Query { project(id: ID!): Project, old: String @deprecated(reason: "Use project. Removal after 2026-01-01.") }
type Project { id: ID!, name: String!, venue: Venue, sessions(status: [Status!], legacy: Boolean @deprecated(reason: "Ignored. Removal after 2026-01-01.")): [String!]! }
type Venue { city: String }
enum Status { DRAFT PUBLISHED OLD @deprecated(reason: "Never used. Removal after 2026-01-01.") }
`;

describe("schema.graphql and a snapshot per API version", () => {
  test("each version's snapshot matches the schema the code builds for it", () => {
    assert.equal(snapshotFile(apiVersions[0] as (typeof apiVersions)[number]), schemaFile);
    for (const version of apiVersions) {
      const file = snapshotFile(version);
      const committed = readFileSync(join(repositoryRoot, file), "utf8");
      assert.ok(
        committed === printedSchema(version),
        `${file} differs from the code's schema of ${version.name}: run \`npm run build && node scripts/print-schema.mjs\` and commit it`,
      );
    }
  });

  test("a version changes incompatibly exactly what it declares against the version before it", async () => {
    for (let i = 1; i < apiVersions.length; i++) {
      const [older, newer] = [apiVersions[i - 1], apiVersions[i]] as const;
      if (!older || !newer) continue;
      const changes = await breakingChanges(printedSchema(older), printedSchema(newer));
      const paths = [...new Set(changes.map((change) => change.path))].sort();
      assert.deepEqual(
        paths,
        newer.changes.map((change) => change.coordinate).sort(),
        `${newer.name} must declare each breaking change against ${older.name} (api-versions.ts)`,
      );
    }
  });

  test("the first version still has the field the newest renamed, under its old name", () => {
    const [first] = apiVersions;
    assert.ok(first);
    const old = schema(first).getType("TicketType");
    const newest = schema().getType("TicketType");
    assert.ok(old && newest && "getFields" in old && "getFields" in newest);
    assert.deepEqual([Boolean(old.getFields().quantity), Boolean(old.getFields().capacity)], [true, false]);
    assert.deepEqual(
      [Boolean(newest.getFields().quantity), Boolean(newest.getFields().capacity)],
      [false, true],
    );
  });

  test("announces every deprecation with a removal date", () => {
    const missing: string[] = [];
    for (const type of Object.values(schema().getTypeMap())) {
      if (type.name.startsWith("__")) continue;
      const members: { coordinate: string; reason: string | null | undefined }[] = [];
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          members.push({ coordinate: `${type.name}.${field.name}`, reason: field.deprecationReason });
          for (const arg of field.args) {
            members.push({
              coordinate: `${type.name}.${field.name}(${arg.name})`,
              reason: arg.deprecationReason,
            });
          }
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          members.push({ coordinate: `${type.name}.${field.name}`, reason: field.deprecationReason });
        }
      } else if (isEnumType(type)) {
        for (const value of type.getValues()) {
          members.push({ coordinate: `${type.name}.${value.name}`, reason: value.deprecationReason });
        }
      }
      for (const { coordinate, reason } of members) {
        if (reason && !removalDate(reason)) missing.push(coordinate);
      }
    }
    assert.deepEqual(missing, [], 'end each deprecation reason with "Removal after YYYY-MM-DD."');
  });

  test("has no breaking change in any version's git history that was not deprecated first", async () => {
    for (const version of apiVersions) {
      const file = snapshotFile(version);
      const workingTree = readFileSync(join(repositoryRoot, file), "utf8");
      const { violations } = await historyViolations(repositoryRoot, workingTree, file);
      assert.deepEqual(violations, [], `${file} (${version.name})`);
    }
  });

  test("shows its history in the changelog, newest first", async () => {
    const changelog = await schemaChangelog(repositoryRoot);
    assert.ok(changelog && changelog.length > 0, "the changelog lists at least the first version");
    const dates = changelog.map((entry) => entry.date);
    assert.deepEqual(dates, [...dates].sort().reverse());
  });
});

describe("the breaking-change check", () => {
  test("refuses removing a field that was not deprecated", async () => {
    const problems = await unannouncedBreakingChanges(base, base.replace("venue: Venue, ", ""));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /Project\.venue was not deprecated first/);
  });

  test("refuses changing a field's type incompatibly", async () => {
    const problems = await unannouncedBreakingChanges(base, base.replace("name: String!", "name: Int!"));
    assert.match(problems.join("\n"), /Project\.name was not deprecated first/);
  });

  test("refuses a new required argument", async () => {
    const problems = await unannouncedBreakingChanges(
      base,
      base.replace("project(id: ID!)", "project(id: ID!, token: String!)"),
    );
    assert.equal(problems.length, 1);
  });

  test("refuses removing an enum value or an argument that was not deprecated", async () => {
    assert.equal((await unannouncedBreakingChanges(base, base.replace("DRAFT ", ""))).length, 1);
    assert.equal((await unannouncedBreakingChanges(base, base.replace("status: [Status!], ", ""))).length, 1);
  });

  test("refuses removing a deprecated field before its announced date", async () => {
    const after = base.replace(/, old: String @deprecated\([^)]*\)/, "");
    const problems = await unannouncedBreakingChanges(base, after, "2025-12-31T10:00:00Z");
    assert.match(problems.join("\n"), /before its announced removal date 2026-01-01/);
  });

  test("allows removing deprecated fields, arguments and enum values after their date", async () => {
    const after = base
      .replace(/, old: String @deprecated\([^)]*\)/, "")
      .replace(/, legacy: Boolean @deprecated\([^)]*\)/, "")
      .replace(/ OLD @deprecated\([^)]*\)/, "");
    assert.deepEqual(await unannouncedBreakingChanges(base, after, "2026-02-01T00:00:00Z"), []);
  });

  test("allows removing a type once every field leading to it was deprecated", async () => {
    const deprecated = base.replace(
      "venue: Venue,",
      'venue: Venue @deprecated(reason: "Moved. Removal after 2026-01-01."),',
    );
    const removed = base.replace("venue: Venue, ", "").replace("type Venue { city: String }", "");
    assert.deepEqual(await unannouncedBreakingChanges(deprecated, removed), []);
    assert.ok((await unannouncedBreakingChanges(base, removed)).length > 0);
  });

  test("compares every step of a repository's history, merges included, and the working tree", async () => {
    const root = temporaryFolder("eventgraph-history-");
    const run = (...args: string[]) =>
      execFileSync("git", ["-C", root, ...args], {
        stdio: "pipe",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@example.test",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@example.test",
          GIT_AUTHOR_DATE: "2026-03-01T00:00:00Z",
          GIT_COMMITTER_DATE: "2026-03-01T00:00:00Z",
        },
      });
    const commit = (sdl: string, message: string) => {
      writeFileSync(join(root, schemaFile), sdl);
      run("add", schemaFile);
      run("commit", "-qm", message);
    };
    run("init", "-q", "-b", "main");
    commit(base, "first");
    run("checkout", "-q", "-b", "feature");
    // An unannounced removal buried on a branch that is merged later.
    commit(base.replace("venue: Venue, ", ""), "drop venue");
    commit(
      base.replace("venue: Venue, ", "").replace("type Venue", "type Place { x: Int }\ntype Venue"),
      "add",
    );
    run("checkout", "-q", "main");
    writeFileSync(join(root, "other.txt"), "x");
    run("add", "other.txt");
    run("commit", "-qm", "unrelated");
    run("merge", "-q", "--no-edit", "feature");

    assert.equal(schemaRevisions({ root }).filter((r) => r.before).length >= 2, true);
    const { violations } = await historyViolations(root, readFileSync(join(root, schemaFile), "utf8"));
    const where = new Set(violations.map((v) => v.where.replace(/^\w+ /, "")));
    // Reported where main received it (the branch's own steps were never served); the additive
    // step is fine.
    assert.deepEqual([...where].sort(), ["Merge branch 'feature'"]);

    const tree = await historyViolations(root, base.replace("name: String!, ", ""));
    assert.ok(tree.violations.some((v) => v.where === "working tree"));
  });
});
