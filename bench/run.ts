import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { type Dataset, type DatasetSpec, prepareDataset } from "./datasets.js";
import { type RoundResult, runRound } from "./load.js";
import { type ChildServer, peakRssMiB, startEventgraph, startLimitServer } from "./processes.js";
import { summarizeProfile } from "./profile.js";
import { attendeeIdsQuery, type Scenario, scenarios } from "./scenarios.js";

/**
 * `npm run bench`: Eventgraph against the limit (a bare node:http server answering the same bytes)
 * in alternating rounds, on SQLite ×1, SQLite ×100 and PostgreSQL ×1. Writes
 * bench/results/latest.json (or quick.json with --quick) and prints a table.
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
    "event-loop": { type: "boolean", default: false },
    webhooks: { type: "boolean", default: false },
  },
});

// `npm run bench -- --event-loop`: the event-loop drill instead (bench/event-loop.ts, SQLite ×100).
if (flags["event-loop"]) {
  execFileSync(process.execPath, [join("dist", "bench", "event-loop.js")], { stdio: "inherit" });
  process.exit(0);
}

// `npm run bench -- --webhooks`: the webhook delivery scenario instead (bench/webhooks.ts, SQLite).
if (flags.webhooks) {
  execFileSync(process.execPath, [join("dist", "bench", "webhooks.js")], { stdio: "inherit" });
  process.exit(0);
}

const quick = flags.quick === true;
const seconds = Number(flags.seconds ?? (quick ? 2 : 3));
const rounds = Number(flags.rounds ?? (quick ? 1 : 2));
const warmupSeconds = quick ? 1 : 1.5;
const connections = Number(flags.connections);
const out = flags.out ?? join("bench", "results", quick ? "quick.json" : "latest.json");
const profileDir = join("bench", "results", "profiles");

const allDatasets: Record<string, DatasetSpec> = {
  sqlite1: { engine: "sqlite", scale: 1 },
  sqlite100: { engine: "sqlite", scale: 100 },
  postgres1: { engine: "postgres", scale: 1 },
};
const datasetKeys = (flags.datasets ?? (quick ? "sqlite1" : "sqlite1,sqlite100,postgres1")).split(",");
const scenarioFilter = flags.scenarios?.split(",");

/** One scenario on one dataset, as reported. */
interface ScenarioResult {
  dataset: string;
  scenario: string;
  title: string;
  cache: Scenario["cache"];
  requestsPerSecond: number;
  limitRequestsPerSecond: number;
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  /** Peak RSS of the server process so far (VmHWM, MiB). */
  peakRssMiB: number | undefined;
  responseBytes: number;
  failures: number;
  rounds: { limit: RoundResult[]; eventgraph: RoundResult[] };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
const round1 = (x: number) => Math.round(x * 10) / 10;

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

// Registered attendees of the first pages, for the check-in scenario (global ids, as apps see them).
async function registeredAttendeeIds(server: ChildServer, dataset: Dataset, pages: number) {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < pages; page++) {
    const response = await fetch(`${server.url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${dataset.token}` },
      body: JSON.stringify({ query: attendeeIdsQuery, variables: { id: dataset.projectId, after } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the shape is the query's, checked by the use below
    const body = (await response.json()) as any;
    const connection = body?.data?.project?.attendees;
    if (!connection) throw new Error(`Could not list attendees: ${JSON.stringify(body)}`);
    for (const edge of connection.edges) ids.push(edge.node.id);
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  return ids;
}

function headersOf(scenario: Scenario, dataset: Dataset): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (scenario.authenticated) headers.authorization = `Bearer ${dataset.token}`;
  return headers;
}

// The answer Eventgraph gives to a scenario's first request: what the limit server will send.
async function referenceResponse(server: ChildServer, scenario: Scenario, dataset: Dataset) {
  const response = await fetch(`${server.url}/api/graphql`, {
    method: "POST",
    headers: headersOf(scenario, dataset),
    body: scenario.body(0),
  });
  const body = await response.text();
  if (response.status !== 200 || body.includes('"errors"')) {
    throw new Error(`${scenario.id} on ${dataset.name} answered ${response.status}: ${body.slice(0, 500)}`);
  }
  return { contentType: response.headers.get("content-type") ?? "application/json", body };
}

async function benchDataset(
  spec: DatasetSpec,
): Promise<{ dataset: Record<string, unknown>; results: ScenarioResult[] }> {
  const label = `${spec.engine} ×${spec.scale}`;
  process.stdout.write(`\n${label}: seeding… `);
  const dataset = await prepareDataset(spec, flags.postgres ?? "");
  process.stdout.write(`${dataset.seedSeconds.toFixed(1)} s\n`);
  const servers: ChildServer[] = [];
  try {
    const eventgraph = await startEventgraph(
      {
        DATABASE_URL: dataset.databaseUrl,
        LOG_LEVEL: "warn",
        WEB_CONCURRENCY: "1",
        // The bench measures the API, not the rate limiter's refusals.
        RATE_LIMIT_APP_POINTS_PER_HOUR: "1000000000",
        RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "1000000000",
      },
      flags.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    );
    servers.push(eventgraph);
    const attendeeIds = await registeredAttendeeIds(eventgraph, dataset, 10);
    const list = scenarios(dataset.projectId, attendeeIds).filter(
      (s) => !scenarioFilter || scenarioFilter.includes(s.id),
    );
    const responses: Record<string, { contentType: string; body: string }> = {};
    for (const scenario of list)
      responses[`/${scenario.id}`] = await referenceResponse(eventgraph, scenario, dataset);
    mkdirSync(join("bench", "results"), { recursive: true });
    const responsesFile = join("bench", "results", `limit-${process.pid}.json.tmp`);
    writeFileSync(responsesFile, JSON.stringify(responses));
    const limit = await startLimitServer(responsesFile);
    servers.push(limit);
    rmSync(responsesFile);

    const results: ScenarioResult[] = [];
    for (const scenario of list) {
      let n = 1;
      const next = () => n++;
      const headers = headersOf(scenario, dataset);
      const load = (url: string, secs: number) =>
        runRound({ url, seconds: secs, connections, headers, body: scenario.body, next });
      const limitUrl = `${limit.url}/${scenario.id}`;
      const eventgraphUrl = `${eventgraph.url}/api/graphql`;
      // Warm-up: JIT, document and response caches, database pages; not measured.
      await load(eventgraphUrl, warmupSeconds);
      await load(limitUrl, warmupSeconds / 2);
      const limitRounds: RoundResult[] = [];
      const eventgraphRounds: RoundResult[] = [];
      for (let r = 0; r < rounds; r++) {
        limitRounds.push(await load(limitUrl, seconds));
        eventgraphRounds.push(await load(eventgraphUrl, seconds));
      }
      const requestsPerSecond = mean(eventgraphRounds.map((x) => x.requestsPerSecond));
      const limitRequestsPerSecond = mean(limitRounds.map((x) => x.requestsPerSecond));
      const result: ScenarioResult = {
        dataset: dataset.name,
        scenario: scenario.id,
        title: scenario.title,
        cache: scenario.cache,
        requestsPerSecond: Math.round(requestsPerSecond),
        limitRequestsPerSecond: Math.round(limitRequestsPerSecond),
        ratio: Math.round((requestsPerSecond / limitRequestsPerSecond) * 1000) / 1000,
        p50Ms: round1(mean(eventgraphRounds.map((x) => x.p50Ms))),
        // The worst round's p99: a tail that shows up once is still a tail.
        p99Ms: round1(Math.max(...eventgraphRounds.map((x) => x.p99Ms))),
        peakRssMiB: round1(peakRssMiB(eventgraph.process.pid) ?? Number.NaN),
        responseBytes: Buffer.byteLength(responses[`/${scenario.id}`]?.body ?? ""),
        failures: [...limitRounds, ...eventgraphRounds].reduce((a, x) => a + x.failures, 0),
        rounds: { limit: limitRounds, eventgraph: eventgraphRounds },
      };
      results.push(result);
      printRow(result);
    }
    const peak = peakRssMiB(eventgraph.process.pid);
    return {
      dataset: {
        name: dataset.name,
        engine: dataset.engine,
        scale: dataset.scale,
        counts: dataset.counts,
        seedSeconds: round1(dataset.seedSeconds),
        peakRssMiB: peak === undefined ? undefined : round1(peak),
      },
      results,
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await dataset.dispose();
  }
}

const columns = ["dataset", "scenario", "cache", "req/s", "limit", "ratio", "p50 ms", "p99 ms", "RSS MiB"];
const widths = [12, 15, 6, 8, 8, 6, 7, 7, 8];
function printLine(cells: (string | number | undefined)[]): void {
  process.stdout.write(`${cells.map((cell, i) => String(cell ?? "").padStart(widths[i] ?? 8)).join(" ")}\n`);
}
function printRow(r: ScenarioResult): void {
  printLine([
    r.dataset,
    r.scenario,
    r.cache,
    r.requestsPerSecond,
    r.limitRequestsPerSecond,
    r.ratio.toFixed(2),
    r.p50Ms,
    r.p99Ms,
    r.peakRssMiB,
  ]);
  if (r.failures > 0) process.stdout.write(`  !! ${r.failures} failed requests in ${r.scenario}\n`);
}

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
process.stdout.write(
  `Eventgraph bench: ${rounds} × ${seconds} s rounds per side, ${connections} connections, on ${machine.cpu} (${machine.cores} cores)\n`,
);
printLine(columns);
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
  const done = await benchDataset(spec);
  datasets.push(done.dataset);
  results.push(...done.results);
}

const report = {
  date: new Date().toISOString(),
  commit: gitCommit(),
  machine,
  settings: { quick, seconds, rounds, warmupSeconds, connections, loadGenerator: "autocannon" },
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
