import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { sql } from "kysely";
import type { CheckpointRound } from "./checkpoints.js";
import { openDatabase } from "./database.js";

const folder = mkdtempSync(join(tmpdir(), "eventgraph-checkpoints-"));
after(() => rmSync(folder, { recursive: true, force: true }));

describe("SQLite checkpoints in a worker thread", () => {
  test("the server's connection no longer checkpoints at commit; the thread does, and the WAL stays small", async () => {
    const path = join(folder, "server.db");
    const database = openDatabase(`sqlite:${path}`, { checkpointInBackground: true });
    const { db, checkpointer } = database;
    assert.ok(checkpointer);
    try {
      // Only as a safety net (10,000 pages) does the connection itself still checkpoint.
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      assert.equal(rows[0]?.wal_autocheckpoint, 10_000);
      await sql`create table t (x text)`.execute(db);
      const walBytes: number[] = [];
      for (let batch = 0; batch < 12; batch++) {
        for (let i = 0; i < 50; i++) await sql`insert into t values (${"x".repeat(2000)})`.execute(db);
        const round: CheckpointRound = await checkpointer.now();
        assert.equal(round.busy, 0);
        assert.equal(round.checkpointed, round.log, "every frame was copied into the database file");
        walBytes.push(statSync(`${path}-wal`).size);
      }
      // Once checkpointed, the WAL is written again from its start: it does not grow with the commits.
      const [, second = 0] = walBytes;
      const last = walBytes.at(-1) ?? Number.POSITIVE_INFINITY;
      assert.ok(last <= second * 1.5, `WAL sizes ${walBytes.join(", ")}`);
    } finally {
      await database.close();
    }
  });

  test("a second process's connection on the same file writes and checkpoints beside it", async () => {
    const path = join(folder, "shared.db");
    const server = openDatabase(`sqlite:${path}`, { checkpointInBackground: true });
    // Like the CLI: SQLite's own checkpoints at commit time.
    const cli = openDatabase(`sqlite:${path}`);
    const { checkpointer } = server;
    assert.ok(checkpointer);
    try {
      await sql`create table t (x text)`.execute(server.db);
      for (let i = 0; i < 300; i++) {
        await sql`insert into t values (${"x".repeat(2000)})`.execute(i % 2 ? cli.db : server.db);
      }
      const round: CheckpointRound = await checkpointer.now();
      assert.equal(round.checkpointed, round.log);
      const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(cli.db);
      assert.equal(rows[0]?.n, 300);
    } finally {
      await cli.close();
      await server.close();
    }
  });

  test("gives the connection SQLite's own checkpoints back once the thread stops", async () => {
    const database = openDatabase(`sqlite:${join(folder, "stopped.db")}`, { checkpointInBackground: true });
    try {
      await database.checkpointer?.stop();
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        database.db,
      );
      assert.equal(rows[0]?.wal_autocheckpoint, 1000);
    } finally {
      await database.close();
    }
  });
});
