import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runCliInProcess } from "../helpers/cli.js";
import { delayingProxy } from "../helpers/delaying-proxy.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { createTestContext, fastPathOff } from "../helpers/test-services.js";
import { ownDatabase } from "../helpers/throwaway-database.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

// PRODUCT.md §5: revocation takes effect on the next request, on every server process. The server
// remembers a token until its change feed hears of a change; here it hears everything a tenth of a
// second late (its connections go through a delaying proxy), while the CLI writes directly. The CLI
// waits after its commit until the server has heard (the fence), so the next request is refused.
// Without the fence the server answers it from what it remembered.
describe("a token rotated by another process, heard late", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  let server: TestServer;
  let direct = "";
  let drop = async () => {};
  let proxy: { url: string; close(): void } | undefined;
  before(async () => {
    if (!postgres) return;
    const own = await ownDatabase(postgres, "revocation");
    drop = own.drop;
    direct = own.engine.newDatabaseUrl();
    // Migrated directly: through the proxy every statement would wait.
    await (await createTestContext(own.engine)).close();
    proxy = await delayingProxy(direct, 100);
    const slow = proxy.url;
    server = await startTestServer({ name: "postgres", newDatabaseUrl: () => slow });
  });
  after(async () => {
    await server?.close();
    proxy?.close();
    await drop();
  });

  test("the old token is refused at the very next request", {
    skip: fastPathOff("remembered-credentials"),
  }, async () => {
    const { app, token, projectId } = await createApp(server.services, { permissions: ["agenda:read"] });
    const query = "query ($id: ID!) { project(id: $id) { id } }";
    const ask = (bearer: string) => gql(server.url, query, { token: bearer, variables: { id: projectId } });
    // The feed listens, and the token is remembered: the second request reads nothing.
    const deadline = Date.now() + 10_000;
    while (server.services.database.externalWrites() === undefined) {
      assert.ok(Date.now() < deadline, "the change feed did not start listening");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await ask(token)).status, 200);
    server.statements.length = 0;
    assert.equal((await ask(token)).status, 200);
    assert.deepEqual(
      server.statements.filter((sql) => /from "apps"/.test(sql)),
      [],
      "the token was not remembered, so this test would prove nothing",
    );

    const rotated = await runCliInProcess(["apps", "rotate-token", "--app", app.id, "--json"], {
      DATABASE_URL: direct,
    });
    assert.equal(rotated.code, 0, rotated.stderr);
    const old = await ask(token);
    assert.equal(old.status, 401);
    assert.equal(old.body.errors[0].extensions.code, "UNAUTHENTICATED");
    assert.equal((await ask(JSON.parse(rotated.stdout).token)).status, 200);
  });
});
