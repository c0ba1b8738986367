import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { type Child, startServerProcess } from "../helpers/processes.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");
const createTrack = `mutation($input: CreateTrackInput!) { createTrack(input: $input) { track { id } userErrors { message } } }`;

// Issue 41: an Idempotency-Key's lock is a row in the database, not a remembered value, so two
// server processes on one PostgreSQL run a keyed mutation once between them. (SQLite serves one
// process per database file.)
describe("Idempotency-Key across two server processes (postgres)", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  let ctx: TestContext;
  const children: Child[] = [];
  const urls: string[] = [];
  before(async () => {
    if (!postgres) return;
    ctx = await createTestContext(postgres);
    const env = { DATABASE_URL: ctx.config.databaseUrl, LOG_LEVEL: "info" };
    const servers = await Promise.all([
      startServerProcess(env, { timeoutMs: 60_000 }),
      startServerProcess(env, { timeoutMs: 60_000 }),
    ]);
    children.push(...servers.map((s) => s.child));
    urls.push(...servers.map((s) => s.url));
  });
  after(async () => {
    for (const child of children) child.process.kill("SIGTERM");
    await Promise.all(children.map((child) => child.exited));
    await ctx?.close();
  });

  test("50 requests with one key, spread over both processes, create one track; repeats replay it", async () => {
    const { token, projectId } = await createApp(ctx.services, {
      permissions: ["agenda:read", "agenda:write"],
    });
    const key = randomUUID();
    const body = JSON.stringify({ query: createTrack, variables: { input: { projectId, name: "Shared" } } });
    const send = (url: string) =>
      fetch(`${url}/api/graphql`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          "idempotency-key": key,
        },
        body,
      }).then(async (r) => ({
        status: r.status,
        replayed: r.headers.get("idempotent-replayed"),
        text: await r.text(),
      }));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send(urls[i % 2] ?? "")));
    const tracks = await ctx.database.db
      .selectFrom("tracks")
      .select("id")
      .where("project_id", "=", projectId)
      .execute();
    assert.equal(tracks.length, 1);
    const ran = answers.filter((a) => a.status === 200 && a.replayed === null);
    assert.equal(ran.length, 1);
    assert.deepEqual(
      [...new Set(answers.map((a) => a.status))].filter((s) => s !== 200 && s !== 409),
      [],
    );
    // Once it has answered, either process replays the same bytes.
    for (const url of urls) {
      const again = await send(url);
      assert.equal(again.status, 200);
      assert.equal(again.replayed, "true");
      assert.equal(again.text, ran[0]?.text);
    }
  });
});
