import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { systemActor } from "../src/modules/access/actor.js";
import { createServices } from "../src/services.js";

/** A seeded database the server under test runs on. */
export interface Dataset {
  /** "sqlite ×1", "sqlite ×100", "postgres ×1". */
  name: string;
  engine: "sqlite" | "postgres";
  scale: number;
  databaseUrl: string;
  projectId: string;
  /** Token of an app in the demo project holding agenda:read, attendees:read and checkins:write. */
  token: string;
  /** Rows the demo generator made, per table. */
  counts: Record<string, number>;
  seedSeconds: number;
  /**
   * A copy of the database as it stands now, for a side that writes (the write peer), so that its
   * writes and Eventgraph's never meet: its database URL. Removed by `dispose`.
   */
  copy(): Promise<string>;
  /** Deletes the file or drops the database (and its copies). */
  dispose(): Promise<void>;
}

/** What to prepare. */
export interface DatasetSpec {
  engine: "sqlite" | "postgres";
  scale: number;
}

// The generator is deterministic from its seed, so every run measures the same conference.
const seed = 1;

async function seedInto(databaseUrl: string, scale: number) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" });
  const database = openDatabase(databaseUrl, { sqlitePageCacheMiB: 64 });
  try {
    await migrateToLatest(database.db);
    const services = createServices(database, config, createLogger("warn"));
    const started = performance.now();
    const demo = await services.demo.seed({ scale, seed });
    const { token } = await services.apps.createApp(systemActor, {
      projectId: demo.project.id,
      name: "Benchmark",
      permissions: ["agenda:read", "attendees:read", "checkins:write"],
    });
    // A server's PostgreSQL has statistics (autovacuum analyzes within a minute of a bulk load); a
    // freshly seeded one has none, and planned the attendee page as a bitmap scan of the project's
    // every attendee plus a sort (2.8 ms at ×1) instead of an index scan stopping at the page
    // (0.16 ms): the bench measured a plan no server keeps for long.
    if (database.engine === "postgres") await sql`analyze`.execute(database.db);
    return {
      projectId: demo.project.id,
      token,
      counts: demo.counts,
      seedSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await database.close();
  }
}

/**
 * Seeds the demo conference at `scale` into a new SQLite file, or into a new PostgreSQL database
 * `eventgraph_bench_<pid>_<scale>` on the server `postgresUrl` names (dropped by `dispose`).
 */
export async function prepareDataset(spec: DatasetSpec, postgresUrl: string): Promise<Dataset> {
  const name = `${spec.engine} ×${spec.scale}`;
  if (spec.engine === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "eventgraph-bench-"));
    const file = join(dir, "bench.sqlite");
    const databaseUrl = `sqlite:${file}`;
    const seeded = await seedInto(databaseUrl, spec.scale);
    let copies = 0;
    return {
      name,
      engine: "sqlite",
      scale: spec.scale,
      databaseUrl,
      ...seeded,
      // VACUUM INTO writes the file as one read transaction sees it, whatever the WAL holds.
      async copy() {
        const copyFile = join(dir, `copy-${++copies}.sqlite`);
        const source = new Database(file, { readonly: true });
        try {
          source.prepare("vacuum into ?").run(copyFile);
        } finally {
          source.close();
        }
        return `sqlite:${copyFile}`;
      },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  const databaseName = `eventgraph_bench_${process.pid}_${spec.scale}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${databaseName}"`);
  const url = new URL(postgresUrl);
  url.pathname = `/${databaseName}`;
  const copies: string[] = [];
  const dispose = async () => {
    for (const copy of copies) await admin(`drop database if exists "${copy}" with (force)`);
    await admin(`drop database if exists "${databaseName}" with (force)`);
  };
  // A template copies the files; it needs the source without connections (taken before any server starts).
  const copy = async () => {
    const copyName = `${databaseName}_copy${copies.length + 1}`;
    copies.push(copyName);
    await admin(`create database "${copyName}" template "${databaseName}"`);
    const copyUrl = new URL(url);
    copyUrl.pathname = `/${copyName}`;
    return copyUrl.toString();
  };
  try {
    const seeded = await seedInto(url.toString(), spec.scale);
    return {
      name,
      engine: "postgres",
      scale: spec.scale,
      databaseUrl: url.toString(),
      ...seeded,
      copy,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** The datasets of the per-request drills (allocation, instructions), by their flag's names. */
const drillDatasets: Record<string, DatasetSpec> = {
  sqlite1: { engine: "sqlite", scale: 1 },
  sqlite100: { engine: "sqlite", scale: 100 },
  postgres1: { engine: "postgres", scale: 1 },
};

/**
 * Runs `measure` on every dataset named in `keys` (`--datasets`), for this tree and then the built
 * checkout `compareTree` if given (`--compare-tree`), and collects what it returns. Each dataset is
 * seeded once, shared by the trees, and removed after.
 */
export async function measureOnDatasets<T>(
  keys: string,
  compareTree: string | undefined,
  postgresUrl: string,
  measure: (dataset: Dataset, tree: string) => Promise<T[]>,
): Promise<T[]> {
  const trees = [".", ...(compareTree ? [compareTree] : [])];
  for (const tree of trees) {
    if (!existsSync(join(tree, "dist", "src", "main.js")))
      throw new Error(`${tree} is not built (npm run build)`);
  }
  const all: T[] = [];
  for (const key of keys.split(",").filter(Boolean)) {
    const spec = drillDatasets[key];
    if (!spec) throw new Error(`Unknown dataset ${key}; known: ${Object.keys(drillDatasets).join(", ")}`);
    const dataset = await prepareDataset(spec, postgresUrl);
    try {
      for (const tree of trees) all.push(...(await measure(dataset, tree)));
    } finally {
      await dataset.dispose();
    }
  }
  return all;
}
