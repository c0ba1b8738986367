import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { writeChangelogFile } from "../../src/docs/build-changelog.js";
import { changelogFile, readChangelogFile } from "../../src/docs/changelog-file.js";
import { ErrorCode } from "../../src/errors.js";
import { sqliteEngine } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The guides are files served as pages; the database plays no part, so one engine is enough.
const engine = sqliteEngine;

describe("the guides", () => {
  let server: TestServer;
  before(async () => {
    // `npm run build` generates the changelog; a run after only `tsc` has not, so generate it here.
    if (!existsSync(changelogFile)) await writeChangelogFile();
    server = await startTestServer(engine);
  });
  after(() => server?.close());

  const page = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, html: await response.text(), headers: response.headers };
  };

  test("answers 404 for a guide that does not exist", async () => {
    assert.equal((await page("/graphql/reference/guides/nope")).status, 404);
    assert.equal((await page("/graphql/reference/assets/..%2F..%2Fpackage.json")).status, 404);
  });

  test("lists every guide, and every internal link of every page answers", async () => {
    const index = await page("/graphql/reference/guides/");
    const guides = [...index.html.matchAll(/href="(\/graphql\/reference\/guides\/[\w-]+)"/g)].map(
      (m) => m[1] ?? "",
    );
    for (const slug of [
      "getting-started",
      "permissions",
      "errors",
      "pagination",
      "limits",
      "versioning",
      "organizers",
      "operators",
    ]) {
      assert.ok(guides.includes(`/graphql/reference/guides/${slug}`), slug);
    }
    const links = new Set<string>();
    for (const path of [...guides, "/graphql/reference/", "/graphql/reference/changelog"]) {
      const { status, html, headers } = await page(path);
      assert.equal(status, 200, path);
      assert.match(headers.get("content-security-policy") ?? "", /script-src 'self'/);
      for (const match of html.matchAll(/href="(\/[^"#]*)/g)) links.add(match[1] ?? "");
    }
    for (const link of links) {
      if (link === "/") continue; // the dashboard's home, not part of the docs
      assert.equal((await fetch(`${server.url}${link}`)).status, 200, link);
    }
  });

  test("documents every error code with an example", async () => {
    const { html } = await page("/graphql/reference/guides/errors");
    for (const code of Object.values(ErrorCode)) {
      assert.match(html, new RegExp(`<code>${code}</code>`), code);
      assert.match(
        html,
        new RegExp(`&quot;code&quot;:&quot;${code}&quot;`),
        `an example response for ${code}`,
      );
    }
  });

  test("shows the changelog with deprecations and the schema's history", async () => {
    const { html } = await page("/graphql/reference/changelog");
    assert.match(html, /Deprecated, with removal dates/);
    assert.match(html, /Schema first published|was added/);
  });

  test("shows the changelog the build generated, newest entry first", async () => {
    const entries = readChangelogFile();
    assert.ok(entries && entries.length > 0, "the build wrote a changelog from git history");
    const { html } = await page("/graphql/reference/changelog");
    const newest = html.indexOf(`<code>${entries[0]?.commit.slice(0, 10)}</code>`);
    assert.ok(newest > 0, "the newest entry of dist/schema-changelog.json is on the page");
    const oldest = html.indexOf(`<code>${entries.at(-1)?.commit.slice(0, 10)}</code>`);
    assert.ok(oldest >= newest);
  });
});
