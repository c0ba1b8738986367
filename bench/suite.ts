import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { type Dataset, type DatasetSpec, prepareDataset } from "./datasets.js";
import { type EventDayResult, eventDay } from "./event-day.js";
import { chooseLoadGenerator } from "./load.js";
import { printHeader, printRow } from "./print-rows.js";
import {
  type ChildServer,
  peakRssMiB,
  startCheckInPeer,
  startEventgraph,
  startFastifyBytes,
  startLimitServer,
  startPeer,
  unthrottled,
} from "./processes.js";
import { summarizeProfile } from "./profile.js";
import { measureSides, round1, type ScenarioResult, scenarioResult } from "./scenario-rounds.js";
import {
  checkInScenarioId,
  comparableData,
  headersOf,
  referenceResponse,
  registeredAttendeeIds,
  type Scenario,
  scenarios,
} from "./scenarios.js";
import { type GcCounters, gcCounters } from "./server-metrics.js";

/**
 * `npm run bench`: Eventgraph against the limit (a bare node:http server answering the same bytes)
 * and two peers (bench/peers/graphql-peer.ts: Mercurius + graphql-jit + DataLoader reading the same
 * SQLite file, and the same answering from memory), hits also against Fastify sending the same
 * bytes (bench/peers/fastify-bytes.ts), in alternating rounds of wrk load, on SQLite ×1,
 * SQLite ×100, PostgreSQL ×1 and SQLite ×1 with WEB_CONCURRENCY=2 (against a two-process limit),
 * each followed by the event-day mix (bench/event-day.ts). Every figure that travels is a ratio to
 * the limit measured in the same run. Writes bench/results/latest.json (quick.json with --quick).
 * `--compare-tree <dir>` / `--compare-node-options="<flags>"` / `--compare-fast-paths=<switches>`
 * add a second Eventgraph as a side. Eventgraph itself takes EVENTGRAPH_FAST_PATHS from the
 * environment the bench runs in, as every variable it reads.
 */

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    datasets: { type: "string" },
    scenarios: { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string", default: "50" },
    out: { type: "string" },
    autocannon: { type: "boolean", default: false },
    peers: { type: "boolean", default: true },
    "event-day": { type: "boolean", default: true },
    // A second Eventgraph in the same rounds (an A/B): another built tree, other Node options, or both.
    "compare-tree": { type: "string" },
    "compare-node-options": { type: "string" },
    // The second Eventgraph with these switches (EVENTGRAPH_FAST_PATHS, src/config.ts), e.g. `off`.
    "compare-fast-paths": { type: "string" },
  },
  allowNegative: true,
});
const generator = chooseLoadGenerator(flags.autocannon === true);

const quick = flags.quick === true;
const seconds = Number(flags.seconds ?? (quick ? 2 : 3));
const rounds = Number(flags.rounds ?? (quick ? 1 : 2));
const warmupSeconds = quick ? 1 : 1.5;
const connections = Number(flags.connections);
const out = flags.out ?? join("bench", "results", quick ? "quick.json" : "latest.json");
const profileDir = join("bench", "results", "profiles");
const comparing =
  flags["compare-tree"] !== undefined ||
  flags["compare-node-options"] !== undefined ||
  flags["compare-fast-paths"] !== undefined;

/** A dataset and how Eventgraph serves it. */
interface Setup extends DatasetSpec {
  /** WEB_CONCURRENCY of Eventgraph, and the limit server's process count. */
  workers: number;
  /** Scenario ids measured; all when absent. */
  only?: string[];
}
const allDatasets: Record<string, Setup> = {
  sqlite1: { engine: "sqlite", scale: 1, workers: 1 },
  sqlite100: { engine: "sqlite", scale: 100, workers: 1 },
  postgres1: { engine: "postgres", scale: 1, workers: 1 },
  postgres100: { engine: "postgres", scale: 100, workers: 1 },
  "sqlite1-x2": {
    engine: "sqlite",
    scale: 1,
    workers: 2,
    only: ["small-hit", "agenda-hit", "agenda-miss", "checkin"],
  },
};
const datasetKeys = (flags.datasets ?? (quick ? "sqlite1" : "sqlite1,sqlite100,postgres1,sqlite1-x2")).split(
  ",",
);
const scenarioFilter = flags.scenarios?.split(",");

async function postgresVersion(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>("show server_version");
    return rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

function gitCommit(): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

/** Whether a peer answers the scenario's first request with Eventgraph's `data` (comparableData). */
async function peerAgrees(peer: ChildServer, scenario: Scenario, dataset: Dataset, reference: string) {
  const response = await fetch(`${peer.url}/api/graphql`, {
    method: "POST",
    headers: headersOf(scenario, dataset),
    body: scenario.body(0),
  });
  return comparableData(await response.text(), scenario) === comparableData(reference, scenario);
}

async function benchDataset(
  key: string,
  spec: Setup,
): Promise<{ dataset: Record<string, unknown>; results: ScenarioResult[]; eventDay?: EventDayResult }> {
  const label = `${spec.engine} ×${spec.scale}${spec.workers > 1 ? ` ×${spec.workers} processes` : ""}`;
  process.stdout.write(`\n${label}: seeding… `);
  const dataset = await prepareDataset(spec, flags.postgres ?? "");
  process.stdout.write(`${dataset.seedSeconds.toFixed(1)} s\n`);
  const measured = (id: string) =>
    (!scenarioFilter || scenarioFilter.includes(id)) && (!spec.only || spec.only.includes(id));
  const servers: ChildServer[] = [];
  try {
    // The write peer changes rows: it gets its own copy, taken before Eventgraph checks anyone in,
    // and only when the check-ins are measured (a copy of ×100 is its whole file again).
    const writerCopy =
      flags.peers && spec.workers === 1 && measured(checkInScenarioId) ? await dataset.copy() : undefined;
    const env = {
      DATABASE_URL: dataset.databaseUrl,
      LOG_LEVEL: "warn",
      WEB_CONCURRENCY: String(spec.workers),
      ...unthrottled,
      // The event day reads the cache's hit and miss counters.
      METRICS_TOKEN: benchMetricsToken,
    };
    const eventgraph = await startEventgraph(
      env,
      flags.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    );
    servers.push(eventgraph);
    // Measured like a peer, in the same rounds: the only way a change of a few per cent shows
    // through this machine's noise (whole runs differ by more than that).
    const compareFastPaths = flags["compare-fast-paths"];
    const compared = comparing
      ? await startEventgraph(
          compareFastPaths === undefined ? env : { ...env, EVENTGRAPH_FAST_PATHS: compareFastPaths },
          (flags["compare-node-options"] ?? "").split(" ").filter(Boolean),
          flags["compare-tree"] ?? ".",
        )
      : undefined;
    if (compared) servers.push(compared);
    const attendeeIds = await registeredAttendeeIds(eventgraph.url, dataset.projectId, dataset.token, 10);
    const list = scenarios(dataset.projectId, attendeeIds).filter((s) => measured(s.id));
    const responses: Record<string, { contentType: string; body: string }> = {};
    for (const scenario of list)
      responses[`/${scenario.id}`] = await referenceResponse(eventgraph.url, scenario, dataset);
    mkdirSync(join("bench", "results"), { recursive: true });
    const responsesFile = join("bench", "results", `limit-${process.pid}.json.tmp`);
    writeFileSync(responsesFile, JSON.stringify(responses));
    const limit = await startLimitServer(responsesFile, spec.workers);
    servers.push(limit);
    // The floor of a hit through Fastify, for the single-process rows (the limit has the ×2p ones).
    const fastify = flags.peers && spec.workers === 1 ? await startFastifyBytes(responsesFile) : undefined;
    if (fastify) servers.push(fastify);
    rmSync(responsesFile);
    // The Mercurius peers read SQLite files only, and are single processes.
    const peers: Record<string, ChildServer> = compared ? { compared } : {};
    if (flags.peers && spec.engine === "sqlite" && spec.workers === 1) {
      const file = dataset.databaseUrl.replace(/^sqlite:/, "");
      peers["mercurius-sqlite"] = await startPeer(file, false);
      peers["mercurius-memory"] = await startPeer(file, true);
      servers.push(...Object.values(peers));
    }
    if (writerCopy) {
      peers["mercurius-writes"] = await startCheckInPeer(writerCopy);
      servers.push(peers["mercurius-writes"]);
    }

    const results: ScenarioResult[] = [];
    let next = 0;
    const reserve = (count: number) => {
      const start = next;
      next += count;
      return start;
    };
    const settings = { generator, connections, seconds, rounds, warmupSeconds, reserve };
    for (const scenario of list) {
      const headers = headersOf(scenario, dataset);
      const reference = responses[`/${scenario.id}`]?.body ?? "";
      const sides: Record<string, string> = {
        limit: `${limit.url}/${scenario.id}`,
        eventgraph: `${eventgraph.url}/api/graphql`,
      };
      // CPU per request is read from each process, with its workers when it has them (cpuSeconds).
      const pids: Record<string, number | undefined> = {
        limit: limit.process.pid,
        eventgraph: eventgraph.process.pid,
      };
      // A cluster's /metrics is one worker's: GC is read of single processes only.
      const gc: Record<string, () => Promise<GcCounters>> = {};
      if (spec.workers === 1) {
        gc.eventgraph = () => gcCounters(eventgraph, benchMetricsToken);
        if (compared) gc.compared = () => gcCounters(compared, benchMetricsToken);
      }
      const agreement: Record<string, boolean> = {};
      if (fastify && scenario.cache === "hit") {
        // It sends the limit's bytes: the same data by construction.
        agreement["fastify-bytes"] = true;
        sides["fastify-bytes"] = `${fastify.url}/${scenario.id}`;
        pids["fastify-bytes"] = fastify.process.pid;
      }
      for (const [name, peer] of Object.entries(peers)) {
        // The readers have no mutations, the writer no queries; the compared Eventgraph has both,
        // and its writes change what the next write answers, so only its reads are compared.
        const write = scenario.cache === "write";
        if (write !== (name === "mercurius-writes") && peer !== compared) continue;
        agreement[name] =
          (write && peer === compared) || (await peerAgrees(peer, scenario, dataset, reference));
        if (!agreement[name]) process.stdout.write(`  !! ${name} answers ${scenario.id} with other data\n`);
        sides[name] = `${peer.url}/api/graphql`;
        pids[name] = peer.process.pid;
      }
      const result = scenarioResult({
        dataset: dataset.name + (spec.workers > 1 ? ` ×${spec.workers}p` : ""),
        scenario,
        rounds: await measureSides(settings, scenario, headers, sides, pids, gc),
        agreement,
        peakRssMiB: peakRssMiB(eventgraph.process.pid),
        comparedPeakRssMiB: peakRssMiB(compared?.process.pid),
        responseBytes: Buffer.byteLength(reference),
      });
      results.push(result);
      printRow(result);
    }
    let day: EventDayResult | undefined;
    // `--scenarios event-day` runs the event day alone (one side: compare runs with other switches).
    const dayWanted = !scenarioFilter || scenarioFilter.includes("event-day");
    if (flags["event-day"] && spec.workers === 1 && attendeeIds.length > 0 && dayWanted) {
      day = await eventDay({
        generator,
        server: eventgraph,
        metricsToken: benchMetricsToken,
        projectId: dataset.projectId,
        token: dataset.token,
        attendeeIds,
        seconds: seconds * 2,
        connections,
        reserve,
      });
      process.stdout.write(
        `  event day (${key}): reads ${Math.round(day.readsPerSecond)} req/s p99 ${day.readP99Ms} ms, ` +
          `check-ins ${day.writesPerSecond.toFixed(1)}/s p99 ${day.writeP99Ms} ms, hit ratio ${day.hitRatio.toFixed(3)}, ` +
          `failures ${day.failures}\n`,
      );
    }
    const peak = peakRssMiB(eventgraph.process.pid);
    return {
      dataset: {
        name: dataset.name,
        key,
        engine: dataset.engine,
        scale: dataset.scale,
        workers: spec.workers,
        counts: dataset.counts,
        seedSeconds: round1(dataset.seedSeconds),
        peakRssMiB: peak === undefined ? undefined : round1(peak),
        eventDay: day,
      },
      results,
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await dataset.dispose();
  }
}

const benchMetricsToken = "bench-metrics-token-0123456789";

const started = Date.now();
const pgVersion = datasetKeys.some((k) => k.startsWith("postgres"))
  ? await postgresVersion(flags.postgres ?? "")
  : undefined;
const cpu = cpus();
const machine = {
  cpu: cpu[0]?.model ?? "unknown",
  cores: cpu.length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  kernel: release(),
  node: process.version,
  postgres: pgVersion,
  // Other work on the machine during the run skews both sides; the 1-minute load average shows it.
  loadAverageAtStart: loadavg()[0],
};
if (generator === "autocannon") {
  process.stdout.write(
    "!! Measured with autocannon (--autocannon): its ceiling lowers every ratio to the limit.\n",
  );
}
process.stdout.write(
  `Eventgraph bench (${generator}): ${rounds} × ${seconds} s rounds per side, ${connections} connections, on ${machine.cpu} (${machine.cores} cores)\n`,
);
printHeader();
if (flags.profile) rmSync(profileDir, { recursive: true, force: true });

const datasets: Record<string, unknown>[] = [];
const results: ScenarioResult[] = [];
for (const key of datasetKeys) {
  const spec = allDatasets[key];
  if (!spec) throw new Error(`Unknown dataset ${key}; expected ${Object.keys(allDatasets).join(", ")}`);
  if (spec.engine === "postgres" && pgVersion === undefined) {
    process.stdout.write(`\n${key}: skipped, PostgreSQL does not answer at the --postgres URL\n`);
    continue;
  }
  const done = await benchDataset(key, spec);
  datasets.push(done.dataset);
  results.push(...done.results);
}

const report = {
  date: new Date().toISOString(),
  commit: gitCommit(),
  machine,
  settings: { quick, seconds, rounds, warmupSeconds, connections, loadGenerator: generator },
  durationSeconds: Math.round((Date.now() - started) / 1000),
  loadAverageAtEnd: loadavg()[0],
  datasets,
  results,
};
mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`\nWrote ${out} in ${report.durationSeconds} s\n`);

if (flags.profile) {
  for (const file of readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"))) {
    process.stdout.write(`\nCPU profile ${file}:\n${summarizeProfile(join(profileDir, file))}\n`);
  }
}
