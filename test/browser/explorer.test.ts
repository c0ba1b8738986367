import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { repositoryRoot } from "../../src/docs/schema-history.js";
import { describeInBrowser, desktopWidth } from "../helpers/browser.js";
import { createApp } from "../helpers/factories.js";

// `npm run build` bundles the explorer; a run of only `tsc` has not, so build it here once, before
// the server starts (it lists the bundle's folder at start).
if (!existsSync(join(repositoryRoot, "dist", "explorer", "explorer.js"))) {
  const script = pathToFileURL(join(repositoryRoot, "scripts", "build-explorer.mjs")).href;
  const { buildExplorer } = await import(script);
  await buildExplorer();
}

// The explorer is the same bundle whatever the database: the fixture's SQLite is enough here.
describeInBrowser("the API explorer", {}, (fx) => {
  test("runs a query with a pasted token and shows the result and the response's status", async () => {
    const { token, projectId } = await createApp(fx.server.services, { name: "Explorer Test App" });
    const context = await fx.context(desktopWidth);
    const outside: string[] = [];
    // Everything must come from our own server: no CDN, no fonts, no telemetry.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${fx.server.url}/`) || url.startsWith("data:") || url.startsWith("blob:")) {
        return route.continue();
      }
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));

    // A draft project is invisible without a token, so its name in the result proves the token was sent.
    const query = `{ viewer { name } project(id: "${projectId}") { name status } }`;
    await page.goto(`${fx.server.url}/graphql/explorer/?query=${encodeURIComponent(query)}`);
    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: /execute query/i }).click();

    const response = page.locator(".graphiql-response");
    await response.getByText("Explorer Test App").waitFor({ timeout: 15_000 });
    // Monaco renders spaces as non-breaking ones.
    const text = (await response.innerText()).replace(/\s+/g, " ");
    assert.match(text, /"name": "Test Conference"/);
    assert.match(text, /"status": "DRAFT"/);

    const status = await page.getByTestId("status").innerText();
    assert.match(status, /HTTP 200/);
    assert.match(status, /cost: \d+ \(\d+ points charged\)/);
    assert.match(status, /rate limit: \d+ of \d+ points left · resets at /);

    assert.deepEqual(outside, [], "the explorer requested nothing from another host");
    assert.deepEqual(pageErrors, []);
  });

  test("sends no token when the field is empty: a draft project is not found", async () => {
    const { projectId } = await createApp(fx.server.services);
    const context = await fx.context(desktopWidth);
    const page = await context.newPage();
    const query = `{ project(id: "${projectId}") { name } }`;
    await page.goto(`${fx.server.url}/graphql/explorer/?query=${encodeURIComponent(query)}`);
    await page.getByRole("button", { name: /execute query/i }).click();
    const response = page.locator(".graphiql-response");
    await response.getByText("NOT_FOUND").waitFor({ timeout: 15_000 });
  });

  test("serves the page with a policy that forbids inline and foreign scripts", async () => {
    const response = await fetch(`${fx.server.url}/graphql/explorer/`);
    const policy = response.headers.get("content-security-policy") ?? "";
    assert.match(policy, /script-src 'self'(;|$)/);
    const html = await response.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
    assert.doesNotMatch(html, /https?:\/\//, "no absolute URL to another host");
  });
});
