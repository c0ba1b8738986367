import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sqliteEngine } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { startTestServer, type TestServer } from "../../test/helpers/test-server.js";

// Every kind of HTML page (dashboard, public event site, API documentation) answers with the same
// base headers from one place, each with its own Content-Security-Policy.
describe("security headers of every kind of page", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(sqliteEngine);
  });
  after(() => server.close());

  test("dashboard, event page and documentation: no framing, no sniffing, a referrer policy, their own CSP", async () => {
    const { project } = await createProject(server.services, { input: { status: "PUBLISHED" } });
    const pages = [
      {
        path: "/login",
        csp: /^default-src 'self'; script-src 'self'; style-src 'self';/,
        referrer: "same-origin",
      },
      {
        path: `/e/${project.id}`,
        csp: /^default-src 'none'; style-src 'self';/,
        referrer: "strict-origin-when-cross-origin",
      },
      {
        path: "/graphql/reference/",
        csp: /^default-src 'self';.*worker-src 'self'/,
        referrer: "strict-origin-when-cross-origin",
      },
    ];
    for (const page of pages) {
      const response = await fetch(`${server.url}${page.path}`);
      assert.equal(response.status, 200, page.path);
      assert.equal(response.headers.get("x-frame-options"), "DENY", page.path);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff", page.path);
      assert.equal(response.headers.get("referrer-policy"), page.referrer, page.path);
      const csp = response.headers.get("content-security-policy") ?? "";
      assert.match(csp, page.csp, page.path);
      assert.match(csp, /frame-ancestors 'none'/, page.path);
      assert.match(csp, /base-uri 'none'/, page.path);
    }
    const dashboard = await fetch(`${server.url}/login`);
    assert.equal(dashboard.headers.get("cross-origin-opener-policy"), "same-origin");
  });
});
