import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { userActor } from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { appWithClient } from "../helpers/oauth-install.js";
import { type Child, spawnNode } from "../helpers/processes.js";
import { serverPerSuite } from "../helpers/test-server.js";

/** A port nothing listens on now: the example's redirect URI must be registered before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

for (const engine of testEngines()) {
  describe(`examples/oauth-app installs, refreshes and notices revocation (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    let example: Child | undefined;
    after(() => {
      example?.process.kill();
    });

    test("runs the example against the real server", async () => {
      const setup = await appWithClient(server.services);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      await server.services.oauth.saveClient(userActor(setup.developerId), {
        appId: setup.app.id,
        redirectUris: `${base}/callback`,
      });
      example = spawnNode(["examples/oauth-app/app.mjs"], {
        env: {
          EVENTGRAPH_URL: server.url,
          CLIENT_ID: setup.app.id,
          CLIENT_SECRET: setup.secret,
          REDIRECT_URI: `${base}/callback`,
          PORT: String(port),
          // Refresh before every call, so that each call proves a rotation.
          REFRESH_MARGIN_SECONDS: "3600",
        },
      });
      await example.waitForLog((line) => line.msg === "listening");

      const start = await fetch(`${base}/install`, { redirect: "manual" });
      const authorize = new URL(start.headers.get("location") ?? "");
      assert.equal(authorize.origin, server.url);
      const browser = await logIn(server.url, setup.organizer.user.email);
      await browser.get(`${authorize.pathname}${authorize.search}`);
      const projectId = setup.organizer.project.id;
      const consented = await browser.post(authorize.pathname, {
        ...Object.fromEntries(authorize.searchParams),
        projectId,
        permissions: browser.formValue("permissions") ?? "",
      });
      assert.equal(consented.status, 303, consented.body);
      const installed = await fetch(consented.headers.get("location") ?? "");
      assert.deepEqual(await installed.json(), { installed: projectId, scope: "agenda:read" });

      for (let i = 0; i < 2; i++) {
        const read = await fetch(`${base}/projects/${projectId}`);
        assert.equal(read.status, 200);
        assert.equal((await read.json()).name, setup.organizer.project.name);
      }

      await server.services.apps.revokeLink(setup.organizer.actor, { appId: setup.app.id, projectId });
      const revoked = await fetch(`${base}/projects/${projectId}`);
      assert.equal(revoked.status, 410);
    });
  });
}
