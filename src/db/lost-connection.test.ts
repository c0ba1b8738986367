import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { delayingProxy } from "../../test/helpers/delaying-proxy.js";
import { testEngines } from "../../test/helpers/engines.js";
import { openDatabase } from "./database.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

// pg emits `error` on a client whose connection ends unexpectedly, and a checked-out client has no
// listener of the pool's: unheard, the event is an uncaught exception that ends the process. CI
// caught a server dying this way when PostgreSQL was cut off while /readyz's probe held a connection
// (test/ops/server.test.ts). Here the connection goes while a statement waits for its answer, every
// time: the database's answers come through a proxy 400 ms late, and the proxy is closed before then.
describe("a PostgreSQL connection lost while checked out", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  test("fails the readiness probe holding it, and the process goes on", async () => {
    if (!postgres) return;
    const proxy = await delayingProxy(postgres.newDatabaseUrl(), 400);
    const database = openDatabase(proxy.url);
    try {
      await database.ping();
      const probe = database.ping();
      await new Promise((resolve) => setTimeout(resolve, 100));
      proxy.close();
      await assert.rejects(probe, /Connection terminated unexpectedly|ECONNRESET|other side closed/);
      assert.equal(database.health.allowAttempt(), false, "the lost database opens the circuit");
    } finally {
      proxy.close();
      await database.close();
    }
  });

  test("fails the statement holding it with DATABASE_UNAVAILABLE, and the process goes on", async () => {
    if (!postgres) return;
    const proxy = await delayingProxy(postgres.newDatabaseUrl(), 400);
    const database = openDatabase(proxy.url);
    try {
      const select = () => database.db.selectNoFrom((eb) => eb.val(1).as("one")).execute();
      await select();
      // The pool's connection is open: the next statement's answer is 400 ms away when it goes.
      const statement = select();
      await new Promise((resolve) => setTimeout(resolve, 100));
      proxy.close();
      await assert.rejects(statement, { name: "DatabaseUnavailableError" });
    } finally {
      proxy.close();
      await database.close();
    }
  });
});
