import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { guessMapping, parseAttendeeCsv } from "../src/modules/attendees/attendees-csv.js";
import { createServices } from "../src/services.js";
import { benchDatabase, seedBenchEvent } from "./throwaway-database.js";

/**
 * `node dist/bench/attendees-bulk.js [--postgres URL] [--export-rows N]`: times a 10,000-row CSV
 * import (and its re-import) and measures what a streamed export of N attendees (default 200,000)
 * costs in memory, on SQLite and, with --postgres, on a fresh PostgreSQL database. Prints a table
 * and writes bench/results/attendees-bulk.json. Issue #12 asks 10,000 rows in under 10 s.
 */

const { values: flags } = parseArgs({
  options: {
    postgres: { type: "string" },
    "export-rows": { type: "string", default: "200000" },
  },
});
const exportRows = Number(flags["export-rows"]);
const chunk = 20_000;

function csvOf(from: number, count: number, tag: string): string {
  const rows = Array.from(
    { length: count },
    (_, i) => `Person ${from + i},p${from + i}-${tag}@example.org,Co ${i % 97},Standard`,
  );
  return `name,email,company,ticket type\n${rows.join("\n")}`;
}

async function measure(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" });
  const database = openDatabase(databaseUrl, { sqlitePageCacheMiB: 64 });
  try {
    await migrateToLatest(database.db);
    const services = createServices(database, config, createLogger("warn"));
    const { owner: actor, project } = await seedBenchEvent(services, "Bulk bench", 1_000_000);
    const importOnce = async (csv: string) => {
      const started = performance.now();
      const parsed = await parseAttendeeCsv(csv);
      const outcome = await services.attendeeFiles.importRows(
        actor,
        project.id,
        parsed,
        guessMapping(parsed.headers),
        { dryRun: false },
      );
      return { seconds: (performance.now() - started) / 1000, imported: outcome.imported };
    };

    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const tenThousand = csvOf(0, 10_000, project.id);
    const first = await importOnce(tenThousand);
    loop.disable();
    const again = await importOnce(tenThousand);
    for (let from = 10_000; from < exportRows; from += chunk)
      await importOnce(csvOf(from, Math.min(chunk, exportRows - from), project.id));

    const access = await services.access.require(actor, project.id);
    global.gc?.();
    const baseline = process.memoryUsage();
    let peakRss = baseline.rss;
    let peakHeap = baseline.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed);
    }, 20);
    let bytes = 0;
    let pages = 0;
    const started = performance.now();
    await pipeline(
      services.attendeeFiles.exportCsv(access, {}, () => pages++),
      new Writable({
        write(data: Buffer, _encoding, done) {
          bytes += data.length;
          done();
        },
      }),
    );
    clearInterval(sampler);
    const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    return {
      import10kSeconds: Math.round(first.seconds * 100) / 100,
      import10kRows: first.imported,
      import10kMaxEventLoopDelayMs: Math.round(loop.max / 1e6),
      reimport10kSeconds: Math.round(again.seconds * 100) / 100,
      reimportedRows: again.imported,
      exportRows,
      exportSeconds: Math.round(((performance.now() - started) / 1000) * 100) / 100,
      exportMiB: mib(bytes),
      exportStatements: pages,
      exportPeakHeapGrowthMiB: mib(peakHeap - baseline.heapUsed),
      exportPeakRssGrowthMiB: mib(peakRss - baseline.rss),
    };
  } finally {
    await database.close();
  }
}

const results: Record<string, unknown> = {};
for (const [engine, server] of [
  ["sqlite", undefined],
  ["postgres", flags.postgres],
] as const) {
  if (engine === "postgres" && !server) continue;
  const database = await benchDatabase("bulk", server);
  try {
    results[engine] = await measure(database.url);
  } finally {
    await database.drop();
  }
}
console.table(results);
mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(join("bench", "results", "attendees-bulk.json"), `${JSON.stringify(results, null, 2)}\n`);
