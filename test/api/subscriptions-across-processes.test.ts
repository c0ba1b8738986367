import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runCliInProcess } from "../helpers/cli.js";
import { delayingProxy } from "../helpers/delaying-proxy.js";
import { testEngines } from "../helpers/engines.js";
import { type Child, startServerProcess } from "../helpers/processes.js";
import { doorProject, refusedStatus, rolledBackEvent, subscribe } from "../helpers/subscriptions.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { createTestContext } from "../helpers/test-services.js";
import { ownDatabase } from "../helpers/throwaway-database.js";

const checkIns = `subscription ($p: ID!) { checkInChanged(projectId: $p) { change attendee { name } } }`;
const postgres = testEngines().find((engine) => engine.name === "postgres");

/** Subscribes at `url` and waits until the first signal could arrive: a write now is heard. */
async function subscribedAt(url: string, token: string, projectId: string) {
  const stream = subscribe(url, token, checkIns, { p: projectId });
  // The other process's hub is out of reach: a subscription answered with an error would end at
  // once, so a stream still open after a moment listens (the request steps and one access check).
  const early = await Promise.race([stream.ended, new Promise((resolve) => setTimeout(resolve, 500))]);
  assert.equal(early, undefined, `the subscription ended at once: ${JSON.stringify(stream.results)}`);
  return stream;
}

// Issue #44: an event committed on one process reaches subscribers on every process, after the
// commit and never for a rolled-back write; a revocation on one process ends streams on the others
// within 1 s. Process A is this one (its services write); B is the compiled server in a child.
describe("subscriptions across two processes on one PostgreSQL database", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  let a: TestServer;
  let b: { child: Child; url: string };
  before(async () => {
    if (!postgres) return;
    const url = postgres.newDatabaseUrl();
    a = await startTestServer(postgres, { DATABASE_URL: url });
    b = await startServerProcess({ DATABASE_URL: url }, { timeoutMs: 60_000 });
  });
  after(async () => {
    b?.child.process.kill();
    await b?.child.exited;
    await a?.close();
  });

  test("a check-in committed on one process reaches a subscriber of the other; a rollback never does", async () => {
    const door = await doorProject(a, ["attendees:read"]);
    const stream = await subscribedAt(b.url, door.token, door.projectId);
    await rolledBackEvent(a.services, door, "checkin.created");
    await a.services.checkins.checkIn(door.owner, { attendeeId: door.attendee.id });
    assert.deepEqual((await stream.nth(1)).data, {
      checkInChanged: { change: "CHECKED_IN", attendee: { name: "Ada" } },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(stream.results.length, 1);
    stream.dispose();
  });

  test("an app deleted on one process ends the other's stream within a second", async () => {
    const door = await doorProject(a, ["attendees:read"]);
    const stream = await subscribedAt(b.url, door.token, door.projectId);
    await a.services.apps.deleteApp(door.owner, { id: door.app.id });
    const deleted = Date.now();
    const { at } = await stream.ended;
    assert.ok(at - deleted < 1_000, `ended ${at - deleted} ms after the deletion`);
    assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
    const again = subscribe(b.url, door.token, checkIns, { p: door.projectId });
    assert.equal(refusedStatus((await again.ended).error), 401);
  });
});

// A process that cannot hear the others could not end a stream revoked elsewhere: it fails closed.
describe("a process that loses its change feed", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  let server: TestServer;
  let proxy: { url: string; close(): void } | undefined;
  let drop = async () => {};
  before(async () => {
    if (!postgres) return;
    const own = await ownDatabase(postgres, "live-feed");
    drop = own.drop;
    const direct = own.engine.newDatabaseUrl();
    await (await createTestContext(own.engine)).close();
    proxy = await delayingProxy(direct, 0);
    const through = proxy.url;
    server = await startTestServer({ name: "postgres", newDatabaseUrl: () => through });
  });
  after(async () => {
    await server?.close();
    proxy?.close();
    await drop();
  });

  test("ends every stream, saying so, and opens no new one", async () => {
    const door = await doorProject(server, ["attendees:read"]);
    const stream = await subscribedAt(server.url, door.token, door.projectId);
    proxy?.close();
    await stream.ended;
    assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "SERVICE_UNAVAILABLE");
    const again = subscribe(server.url, door.token, checkIns, { p: door.projectId });
    assert.equal(refusedStatus((await again.ended).error), 503);
  });
});

// SQLite has no push channel: the server reads data_version while streams are open, so the CLI (a
// connection of its own) rotating a token ends the stream as fast.
describe("a token rotated by the CLI on SQLite", () => {
  let server: TestServer;
  let url = "";
  before(async () => {
    const sqlite = testEngines().find((engine) => engine.name === "sqlite");
    if (!sqlite) throw new Error("SQLite is always tested");
    url = sqlite.newDatabaseUrl();
    server = await startTestServer(sqlite, { DATABASE_URL: url });
  });
  after(async () => server?.close());

  test("a shutdown ends open streams at once, saying so", async () => {
    const sqlite = testEngines().find((engine) => engine.name === "sqlite");
    if (!sqlite) throw new Error("SQLite is always tested");
    const closing = await startTestServer(sqlite);
    const door = await doorProject(closing, ["attendees:read"]);
    const stream = await subscribedAt(closing.url, door.token, door.projectId);
    const started = Date.now();
    await closing.close();
    assert.ok(Date.now() - started < 2_000, `the shutdown took ${Date.now() - started} ms`);
    await stream.ended;
    assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "SERVICE_UNAVAILABLE");
  });

  test("ends the stream within a second", async () => {
    const door = await doorProject(server, ["attendees:read"]);
    const stream = await subscribedAt(server.url, door.token, door.projectId);
    const rotated = await runCliInProcess(["apps", "rotate-token", "--app", door.app.id, "--json"], {
      DATABASE_URL: url,
    });
    assert.equal(rotated.code, 0, rotated.stderr);
    const done = Date.now();
    const { at } = await stream.ended;
    assert.ok(at - done < 1_000, `ended ${at - done} ms after the CLI's rotation`);
    assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "UNAUTHENTICATED");
  });
});
