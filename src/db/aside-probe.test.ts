import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { watchConnections } from "../../test/helpers/connection-watch.js";
import { testEngines } from "../../test/helpers/engines.js";
import { asideProbe, DatabaseHealth } from "./availability.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

// /readyz is public: while the pool is full it probes on a connection of its own, and a flood of
// probes must not become a flood of connections (test/api/timeout.test.ts shows it answering then).
describe("the readiness probe beside a full pool", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  test("a hundred probes at once share one connection and one answer, for a second", async () => {
    if (!postgres) return;
    // A name of this test's own (the URL's wins over the probe's): other test files share the database.
    const name = `readiness probe test ${process.pid} ${Date.now()}`;
    const url = new URL(postgres.newDatabaseUrl());
    url.searchParams.set("application_name", name);
    const connections = await watchConnections(postgres.newDatabaseUrl(), name);
    let most = Number.POSITIVE_INFINITY;
    try {
      const probe = asideProbe(url.href, new DatabaseHealth());
      const answers = Array.from({ length: 100 }, () => probe());
      assert.equal(new Set(answers).size, 1, "every probe got the same answer");
      await Promise.all(answers);
      assert.equal(probe(), answers[0], "still the same answer within the second");
      await sleep(1100);
      const later = probe();
      assert.notEqual(later, answers[0], "a probe after the second asks again");
      await later;
    } finally {
      most = await connections.stop();
    }
    assert.ok(most <= 1, `at most one probe connection at a time, saw ${most}`);
  });

  test("a database with no connection slot left is busy, not down", async () => {
    if (!postgres) return;
    // A role that may hold no connection is refused with too_many_connections (53300), the answer
    // of a server whose max_connections are all taken.
    const role = `eventgraph_no_slot_${process.pid}`;
    const admin = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(`drop role if exists ${role}`);
      await admin.query(`create role ${role} login connection limit 0`);
      const url = new URL(postgres.newDatabaseUrl());
      url.username = role;
      const health = new DatabaseHealth();
      await asideProbe(url.href, health)();
      assert.equal(health.current.status, "up");
    } finally {
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
  });
});

test("the readiness probe says when the database does not answer, and takes it for down", async () => {
  const health = new DatabaseHealth();
  // Nothing listens on port 1: the connection is refused at once.
  const probe = asideProbe("postgres://postgres@127.0.0.1:1/postgres", health);
  await assert.rejects(probe());
  assert.equal(health.current.status, "down");
});

test("a probe waiting on a silent server is shared while it waits, and gives up within its bound", async () => {
  // A server that accepts connections and never answers: the connection attempt hangs.
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const health = new DatabaseHealth();
    const probe = asideProbe(`postgres://postgres@127.0.0.1:${port}/postgres`, health);
    const started = Date.now();
    const first = probe();
    await sleep(1100);
    assert.equal(probe(), first, "still waiting after a second: the same probe, no second connection");
    assert.equal(sockets.size, 1);
    await assert.rejects(first);
    const waited = Date.now() - started;
    assert.ok(waited < 3000, `gave up after ${waited} ms`);
    assert.equal(health.current.status, "down");
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});
