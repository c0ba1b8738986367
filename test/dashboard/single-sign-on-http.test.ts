import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createUser, testPassword } from "../helpers/factories.js";
import { serverPerSuite } from "../helpers/test-server.js";
import { freePort } from "../helpers/throwaway-servers.js";

// A port nothing listens on: the provider is down (or the operator mistyped its address).
const downIssuer = `http://127.0.0.1:${await freePort()}`;

describe("single sign-on when the provider cannot be reached", () => {
  const server = serverPerSuite(sqliteEngine, {
    OIDC_ISSUER: downIssuer,
    OIDC_CLIENT_ID: "eventgraph",
    OIDC_CLIENT_SECRET: "secret",
    OIDC_NAME: "Campus Login",
  });

  test("the server starts anyway, the button answers 502 with a sentence, and passwords still work", async () => {
    const login = await fetch(`${server.url}/login`);
    assert.match(await login.text(), /Log in with Campus Login/);
    const started = await fetch(`${server.url}/login/oidc`, { redirect: "manual" });
    assert.equal(started.status, 502);
    assert.match(await started.text(), /Campus Login cannot be reached right now/);
    const user = await createUser(server.services);
    await server.services.auth.logIn({ email: user.email, password: testPassword }, "127.0.0.20");
  });

  test("a callback without the browser's pending state is refused before anything is sent to the provider", async () => {
    for (const query of ["", "?code=abc&state=xyz", "?error=access_denied"]) {
      const answer = await fetch(`${server.url}/login/oidc/callback${query}`, { redirect: "manual" });
      assert.equal(answer.status, 400, query);
      assert.match(await answer.text(), /started elsewhere/, query);
    }
  });

  test("the start keeps only a same-site page to return to", async () => {
    // Unreachable provider or not, the return path is cleaned before it is stored: checked through
    // the login page's button, which carries it.
    const page = await (
      await fetch(`${server.url}/login?next=${encodeURIComponent("//evil.example/x")}`)
    ).text();
    assert.doesNotMatch(page, /evil\.example/);
    const kept = await (await fetch(`${server.url}/login?next=${encodeURIComponent("/b/AbC1")}`)).text();
    assert.match(kept, /href="\/login\/oidc\?next=%2Fb%2FAbC1"/);
  });
});
