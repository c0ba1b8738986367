import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { AppError } from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import { createServices } from "../../src/services.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type Child, startServerProcess } from "../helpers/processes.js";
import {
  postgresDrillSkipReason,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from "../helpers/throwaway-servers.js";

const skip = postgresDrillSkipReason();

const createTrack = `mutation($input: CreateTrackInput!) {
  createTrack(input: $input) { track { id name } userErrors { message } }
}`;
const readTracks = `query($id: ID!) { project(id: $id) { tracks(first: 100) { totalCount } } }`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

describe("PostgreSQL outage drill (a throwaway cluster stopped under load)", { skip }, () => {
  let pg: ThrowawayPostgres;
  let server: { child: Child; url: string };
  let token: string;
  let projectId: string;

  before(async () => {
    pg = await startThrowawayPostgres();
    const config = loadConfig({ DATABASE_URL: pg.url, LOG_LEVEL: "silent" });
    const database = openDatabase(pg.url, { poolSize: 2 });
    await migrateToLatest(database.db);
    const services = createServices(database, config, createLogger("silent"));
    const created = await createApp(services, { permissions: ["agenda:read", "agenda:write"] });
    token = created.token;
    projectId = created.projectId;
    await database.close();
    server = await startServerProcess(
      {
        DATABASE_URL: pg.url,
        LOG_LEVEL: "info",
        // The drill measures the outage, not the rate limit: fail-fast 503s let the load loop send
        // more requests on a fast machine, and the hourly budget must not be what refuses the last one.
        RATE_LIMIT_APP_POINTS_PER_HOUR: "100000000",
      },
      { timeoutMs: 60_000 },
    );
  });

  after(() => {
    server?.child.process.kill("SIGKILL");
    pg?.remove();
  });

  test("a connection cut between two statements of a transaction fails the transaction with SERVICE_UNAVAILABLE instead of crashing the process", async () => {
    const database = openDatabase(pg.url, { poolSize: 2 });
    const killer = openDatabase(pg.url, { poolSize: 1 });
    try {
      const outcome = database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // The server ends this session while the client is checked out and idle: pg emits `error`
        // on the client, which nobody but our checkout listens to.
        await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(killer.db);
        await sleep(300);
        await sql`select 1`.execute(trx);
      });
      await assert.rejects(outcome, (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, "SERVICE_UNAVAILABLE");
        return true;
      });
      // The broken client was discarded: the next statement gets a fresh connection.
      await sleep(1100);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      assert.equal(rows[0]?.one, 1);
      assert.equal(database.health.current.status, "up");
    } finally {
      await database.close();
      await killer.close();
    }
  });

  test("the server survives pg_ctl stop under load, answers 503 SERVICE_UNAVAILABLE and /readyz 503, then recovers with every acknowledged write kept", async () => {
    const acknowledged: string[] = [];
    const outcomes: { phase: "down" | "other"; outcome: Outcome }[] = [];
    let phase: "down" | "other" = "other";
    let running = true;
    let counter = 0;

    const worker = async (id: number) => {
      while (running) {
        const write = counter++ % 2 === 0;
        const name = `drill-${id}-${counter}`;
        const at = phase;
        try {
          const response = write
            ? await gql(server.url, createTrack, { token, variables: { input: { projectId, name } } })
            : await gql(server.url, readTracks, { token, variables: { id: projectId } });
          const code = response.body?.errors?.[0]?.extensions?.code as string | undefined;
          outcomes.push({
            phase: at,
            outcome: { status: response.status, code, retryAfter: response.headers.get("retry-after") },
          });
          if (write && response.status === 200 && !response.body.errors) {
            assert.equal(response.body.data.createTrack.track.name, name);
            acknowledged.push(name);
          }
        } catch (error) {
          // A refused or reset connection would mean the server process is gone.
          outcomes.push({ phase: at, outcome: { status: 0, code: String(error), retryAfter: null } });
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, i) => worker(i));

    await sleep(1000);
    pg.stop();
    phase = "down";
    await sleep(2500);
    const readyWhileDown = await fetch(`${server.url}/readyz`);
    const readyBody = (await readyWhileDown.json()) as { database: { status: string } };
    phase = "other";
    pg.start();

    // Recovery without a restart: /readyz turns 200 again on its own.
    let ready = false;
    for (let attempt = 0; attempt < 60 && !ready; attempt++) {
      ready = (await fetch(`${server.url}/readyz`)).status === 200;
      if (!ready) await sleep(500);
    }
    await sleep(1000);
    running = false;
    await Promise.all(workers);

    assert.equal(server.child.process.exitCode, null, `the server exited:\n${server.child.stderr}`);
    assert.ok(ready, "/readyz never recovered");
    assert.equal(readyWhileDown.status, 503);
    assert.equal(readyBody.database.status, "unavailable");

    const down = outcomes.filter((o) => o.phase === "down").map((o) => o.outcome);
    assert.ok(down.length > 0, "no request was answered while the database was down");
    for (const outcome of down) {
      // Only two answers are acceptable while the database is away: done, or "try again".
      if (outcome.status === 200) continue;
      assert.deepEqual(outcome, { status: 503, code: "SERVICE_UNAVAILABLE", retryAfter: outcome.retryAfter });
      assert.match(String(outcome.retryAfter), /^\d+$/);
    }
    assert.ok(
      down.some((o) => o.status === 503),
      "no request saw SERVICE_UNAVAILABLE while the database was down",
    );
    assert.ok(
      !outcomes.some((o) => o.outcome.status === 0 || o.outcome.status === 500),
      "a 500 or a dropped connection",
    );

    // After recovery the service writes again, and every write it acknowledged is in the database.
    const after = await gql(server.url, createTrack, {
      token,
      variables: { input: { projectId, name: "after-recovery" } },
    });
    assert.equal(after.status, 200);
    assert.equal(after.body.errors, undefined);
    const check = openDatabase(pg.url, { poolSize: 1 });
    try {
      const rows = await check.db
        .selectFrom("tracks")
        .select("name")
        .where("project_id", "=", projectId)
        .execute();
      const stored = new Set(rows.map((row) => row.name));
      const lost = acknowledged.filter((name) => !stored.has(name));
      assert.deepEqual(lost, [], "acknowledged writes were lost");
      assert.ok(stored.has("after-recovery"));
      assert.ok(acknowledged.length > 0);
    } finally {
      await check.close();
    }
  });
});
