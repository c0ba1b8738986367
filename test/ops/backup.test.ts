import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import SQLite from "better-sqlite3";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createLogger } from "../../src/logger.js";
import { createServices } from "../../src/services.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { runNode, startServerProcess } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";

const cli = (args: string[], env: Record<string, string>) => runNode(["bin/eventgraph.js", ...args], { env });
const createTrack = `mutation($input: CreateTrackInput!) { createTrack(input: $input) { track { id } userErrors { message } } }`;

describe("eventgraph backup and restore", () => {
  test("[sqlite] a backup taken under a stream of writes holds every write acknowledged before it started, passes integrity_check, and restores; restore refuses a live database without --force", async () => {
    const dir = temporaryFolder("eventgraph-backup-");
    const url = `sqlite:${join(dir, "live.sqlite")}`;
    const database = openDatabase(url);
    await migrateToLatest(database.db);
    const services = createServices(database, loadConfig({ DATABASE_URL: url }), createLogger("silent"));
    const { token, projectId } = await createApp(services, { permissions: ["agenda:read", "agenda:write"] });
    await database.close();

    const { child, url: server } = await startServerProcess({ DATABASE_URL: url }, { timeoutMs: 60_000 });
    const acknowledged: string[] = [];
    let running = true;
    const writer = (async () => {
      for (let i = 0; running; i++) {
        const name = `w${i}`;
        const response = await gql(server, createTrack, { token, variables: { input: { projectId, name } } });
        if (response.status === 200 && !response.body.errors) acknowledged.push(name);
      }
    })();
    const out = join(dir, "backup.sqlite");
    let before: string[] = [];
    try {
      while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
      before = [...acknowledged];
      const backup = await cli(["backup", "--out", out, "--json"], { DATABASE_URL: url });
      assert.equal(backup.code, 0, backup.stderr);
      assert.equal(JSON.parse(backup.stdout).tool, "sqlite backup API");
      // Writes kept going while it ran.
      const during = acknowledged.length;
      while (acknowledged.length < during + 5) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      running = false;
      await writer;
      child.process.kill("SIGTERM");
      await child.exited;
    }

    const again = await cli(["backup", "--out", out], { DATABASE_URL: url });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists/);

    const copy = new SQLite(out, { readonly: true });
    try {
      assert.equal(copy.pragma("integrity_check", { simple: true }), "ok");
      const names = new Set(
        (
          copy.prepare("select name from tracks where project_id = ?").all(projectId) as { name: string }[]
        ).map((row) => row.name),
      );
      assert.deepEqual(
        before.filter((name) => !names.has(name)),
        [],
      );
    } finally {
      copy.close();
    }

    // Restoring over the live database needs --force; a new path does not.
    const refused = await cli(["restore", "--from", out], { DATABASE_URL: url });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--force/);
    const forced = await cli(["restore", "--from", out, "--force"], { DATABASE_URL: url });
    assert.equal(forced.code, 0, forced.stderr);
    // A restore onto a fresh machine: the database's folder does not exist yet.
    const fresh = `sqlite:${join(dir, "new-machine", "data", "fresh.sqlite")}`;
    const restored = await cli(["restore", "--from", out], { DATABASE_URL: fresh });
    assert.equal(restored.code, 0, restored.stderr);
    for (const target of [url, fresh]) {
      const db = new SQLite(target.slice("sqlite:".length), { readonly: true });
      try {
        assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
        const count = db.prepare("select count(*) as n from tracks where project_id = ?").get(projectId) as {
          n: number;
        };
        assert.ok(count.n >= before.length);
      } finally {
        db.close();
      }
    }
    // The restored database serves: the server starts on it.
    const { child: restartedChild, url: restartedUrl } = await startServerProcess(
      { DATABASE_URL: fresh },
      { timeoutMs: 60_000 },
    );
    try {
      const read = await gql(restartedUrl, `{ viewer { name } }`, { token });
      assert.equal(read.status, 200);
    } finally {
      restartedChild.process.kill("SIGTERM");
      await restartedChild.exited;
    }
  });

  const postgresUrl = process.env.DATABASE_URL_POSTGRES;
  const pgDump = spawnSync("pg_dump", ["--version"]).status === 0;
  test("[postgres] backup runs pg_dump and restore refuses a database holding data without --force", {
    skip: !postgresUrl ? "DATABASE_URL_POSTGRES is not set" : pgDump ? false : "pg_dump is not on PATH",
  }, async () => {
    const dir = temporaryFolder("eventgraph-backup-pg-");
    const out = join(dir, "backup.dump");
    const source = String(postgresUrl);
    const backup = await cli(["backup", "--out", out], { DATABASE_URL: source });
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(existsSync(out));
    const refused = await cli(["restore", "--from", out], { DATABASE_URL: source });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--force/);

    const target = new URL(source);
    const name = `eventgraph_restore_${Date.now().toString(36)}_${process.pid}`;
    const admin = new pg.Client({ connectionString: source });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    target.pathname = `/${name}`;
    try {
      const restored = await cli(["restore", "--from", out], { DATABASE_URL: target.toString() });
      assert.equal(restored.code, 0, restored.stderr);
      const copy = new pg.Client({ connectionString: target.toString() });
      await copy.connect();
      try {
        const { rows } = await copy.query<{ n: string }>("select count(*) as n from kysely_migration");
        assert.ok(Number(rows[0]?.n) >= 3);
      } finally {
        await copy.end();
      }
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });
});
