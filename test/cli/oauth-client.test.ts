import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCliInProcess as eventgraph, onlyJson } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { serverPerSuite } from "../helpers/test-server.js";

for (const engine of testEngines()) {
  describe(`eventgraph apps oauth-client (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("sets redirect URIs, prints the secret once, rotates it, refuses bad usage and bad URIs", async () => {
      const env = { DATABASE_URL: server.config.databaseUrl };
      const { app } = await createApp(server.services);
      assert.equal((await eventgraph(["apps", "oauth-client", "--app", app.id], env)).code, 2);
      const refused = await eventgraph(
        ["apps", "oauth-client", "--app", app.id, "--redirect-uris", "http://app.example.test/cb", "--json"],
        env,
      );
      assert.equal(refused.code, 1);
      const uris = "https://app.example.test/cb,http://localhost:8090/callback";
      const created = await eventgraph(
        ["apps", "oauth-client", "--app", app.id, "--redirect-uris", uris, "--json"],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const first = onlyJson(created.stdout);
      assert.equal(first.clientId, app.id);
      assert.deepEqual(first.redirectUris, uris.split(","));
      assert.match(String(first.secret), /^evs_/);
      const again = onlyJson(
        (await eventgraph(["apps", "oauth-client", "--app", app.id, "--redirect-uris", uris, "--json"], env))
          .stdout,
      );
      assert.equal(again.secret, null, "the secret is shown once");
      const rotated = onlyJson(
        (await eventgraph(["apps", "oauth-client", "--app", app.id, "--rotate-secret", "--json"], env))
          .stdout,
      );
      assert.match(String(rotated.secret), /^evs_/);
      assert.notEqual(rotated.secret, first.secret);
    });
  });
}
