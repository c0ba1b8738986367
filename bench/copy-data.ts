import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { copyData } from "../src/copy-data/copy-data.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { createServices } from "../src/services.js";
import { temporaryFolder } from "../test/helpers/temporary.js";

/**
 * `node dist/bench/copy-data.js --postgres URL [--scale N]`: seeds the demo conference at ×N
 * (default 100: ≈200,000 attendees) into a new SQLite file, copies it with `copy-data` into a new
 * database on the PostgreSQL server URL names and back into a new SQLite file, and reports how long
 * each copy took (verification included) and how many rows moved. Writes
 * bench/results/copy-data.json. The PostgreSQL database is dropped afterwards.
 */

const { values: flags } = parseArgs({
  options: { postgres: { type: "string" }, scale: { type: "string", default: "100" } },
});
const scale = Number(flags.scale);
if (!flags.postgres || !Number.isInteger(scale) || scale < 1) {
  process.stderr.write("usage: node dist/bench/copy-data.js --postgres postgres://… [--scale N]\n");
  process.exit(2);
}

const dir = temporaryFolder("eventgraph-copy-bench-");
const sourceUrl = `sqlite:${join(dir, "source.sqlite")}`;
const seeding = performance.now();
const source = openDatabase(sourceUrl, { sqlitePageCacheMiB: 64 });
await migrateToLatest(source.db);
const services = createServices(source, loadConfig({ DATABASE_URL: sourceUrl }), createLogger("warn"));
const demo = await services.demo.seed({ scale, seed: 1 });
await source.close();
const seedSeconds = (performance.now() - seeding) / 1000;

const name = `eventgraph_copy_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: flags.postgres });
await admin.connect();
await admin.query(`create database "${name}"`);
const target = new URL(flags.postgres);
target.pathname = `/${name}`;
try {
  const toPostgres = await copyData(sourceUrl, target.toString(), { force: false });
  const back = await copyData(target.toString(), `sqlite:${join(dir, "back.sqlite")}`, { force: false });
  const results = {
    scale,
    attendees: demo.counts.attendees,
    seedSeconds: Number(seedSeconds.toFixed(1)),
    rows: toPostgres.rows,
    sqliteToPostgresSeconds: toPostgres.milliseconds / 1000,
    postgresToSqliteSeconds: back.milliseconds / 1000,
    rowsPerSecondToPostgres: Math.round(toPostgres.rows / (toPostgres.milliseconds / 1000)),
  };
  console.table(results);
  mkdirSync(join("bench", "results"), { recursive: true });
  writeFileSync(join("bench", "results", "copy-data.json"), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
