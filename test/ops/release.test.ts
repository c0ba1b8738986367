import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { onlyJson, runCliInProcess } from "../helpers/cli.js";
import { sqliteEngine } from "../helpers/engines.js";
import { repoRoot } from "../helpers/processes.js";
import { startTestServer } from "../helpers/test-server.js";

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");
const semver = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/;

describe("the release number", () => {
  const { version } = JSON.parse(read("package.json")) as { version: string };

  test("package.json holds a semantic version, and package-lock.json the same", () => {
    assert.match(version, semver);
    assert.equal((JSON.parse(read("package-lock.json")) as { version: string }).version, version);
  });

  test("eventgraph --version prints it, as text and as JSON; anything after it is bad usage", async () => {
    const text = await runCliInProcess(["--version"], {});
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, `eventgraph ${version}\n`);
    const json = await runCliInProcess(["--version", "--json"], {});
    assert.deepEqual(onlyJson(json.stdout), { version });
    const bad = await runCliInProcess(["--version", "--verbose"], {});
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, "");
  });

  test("/healthz says it", async () => {
    const server = await startTestServer(sqliteEngine);
    try {
      const response = await fetch(`${server.url}/healthz`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { status: "ok", version });
    } finally {
      await server.close();
    }
  });

  test("CHANGELOG.md's top entry is this version, with upgrade notes and a section for each audience; the README names it", () => {
    const changelog = read("CHANGELOG.md");
    const entries = [...changelog.matchAll(/^## \[([^\]]+)\] — (\d{4}-\d{2}-\d{2})$/gm)];
    assert.ok(entries.length > 0, "CHANGELOG.md has entries headed `## [x.y.z] — YYYY-MM-DD`");
    assert.equal(entries[0]?.[1], version);
    // Newest first, each version once.
    const versions = entries.map((e) => e[1] ?? "");
    assert.equal(new Set(versions).size, versions.length);
    for (const v of versions) assert.match(v, semver);
    const top = changelog.slice(entries[0]?.index, entries[1]?.index);
    for (const section of ["Upgrade notes", "Operators", "App developers", "Organizers"]) {
      assert.match(top, new RegExp(`^### ${section}$`, "m"), `the ${version} entry has ### ${section}`);
    }
    assert.match(
      read("README.md"),
      new RegExp(`Current release: \\*\\*${version.replaceAll(".", "\\.")}\\*\\*`),
    );
  });
});
