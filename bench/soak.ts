import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { prepareDataset } from "./datasets.js";
import { startEventgraph, unthrottled } from "./processes.js";
import { registeredAttendeeIds, type Scenario, scenarios } from "./scenarios.js";

/**
 * `node dist/bench/soak.js` (also `npm run bench -- --soak`): one Eventgraph process on the SQLite ×1
 * demo (or `--postgres URL`) under a steady open-loop rate of mixed reads and writes for `--minutes`,
 * recording per minute the server's RSS, the requests, the errors and the latency percentiles.
 * Open loop: requests start on a fixed schedule whether or not earlier ones have answered, so a
 * slowing server shows as growing latency instead of a silently lower rate.
 * Writes bench/results/soak.json and prints one line per minute.
 */

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    rate: { type: "string", default: "40" },
    postgres: { type: "string" },
    out: { type: "string", default: join("bench", "results", "soak.json") },
  },
});

const minutes = Number(flags.minutes);
const rate = Number(flags.rate);
// More requests waiting than a few seconds' worth means the server cannot keep up: counted as errors.
const maxInFlight = rate * 5;

// Ten requests of the mix, repeated: half cache misses (executed), a fifth writes.
const mix = [
  "agenda-miss",
  "attendees-miss",
  "checkin",
  "agenda-hit",
  "small-miss",
  "agenda-miss",
  "attendees-hit",
  "checkin",
  "attendees-miss",
  "small-hit",
];

/** One minute of the soak. */
interface MinuteResult {
  minute: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Resident set size of the server at the end of the minute, MiB. */
  rssMiB: number;
  /** The largest RSS sampled during the minute, MiB. */
  maxRssMiB: number;
  /** Failures by kind: an error code of the answer, "http <status>", "network", or "backlog". */
  errorKinds: Record<string, number>;
  /** The machine's 1-minute load average at the end of the minute (a shared machine skews latency). */
  load1: number;
}

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match?.[1] ? Number(match[1]) / 1024 : 0;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

const engine = flags.postgres ? "postgres" : "sqlite";
console.log(`Soak: ${minutes} min at ${rate} requests/s on ${engine} ×1 (seeding…)`);
const dataset = await prepareDataset({ engine, scale: 1 }, flags.postgres ?? "");
const server = await startEventgraph({
  DATABASE_URL: dataset.databaseUrl,
  LOG_LEVEL: "warn",
  WEB_CONCURRENCY: "1",
  ...unthrottled,
});
const errorSamples: string[] = [];
const results: MinuteResult[] = [];
try {
  const attendeeIds = await registeredAttendeeIds(server.url, dataset.projectId, dataset.token, 10);
  const byId = new Map<string, Scenario>(scenarios(dataset.projectId, attendeeIds).map((s) => [s.id, s]));
  const counters = new Map<string, number>();
  let latencies: number[] = [];
  let errors = 0;
  let errorKinds: Record<string, number> = {};
  const fail = (kind: string) => {
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let inFlight = 0;
  let maxRss = 0;

  const fire = async (n: number) => {
    const id = mix[n % mix.length] as string;
    const scenario = byId.get(id);
    if (!scenario) throw new Error(`no scenario ${id}`);
    const k = counters.get(id) ?? 0;
    counters.set(id, k + 1);
    if (inFlight >= maxInFlight) {
      fail("backlog");
      return;
    }
    inFlight++;
    const started = performance.now();
    try {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (scenario.authenticated) headers.authorization = `Bearer ${dataset.token}`;
      const response = await fetch(`${server.url}/api/graphql`, {
        method: "POST",
        headers,
        body: scenario.body(k),
      });
      const text = await response.text();
      // A mutation's userErrors would be a failed write too; the check-in passes never produce one.
      if (response.status !== 200 || text.includes('"errors"') || /"userErrors":\[\{/.test(text)) {
        fail(/"code":"([A-Z_]+)"/.exec(text)?.[1] ?? `http ${response.status}`);
        if (errorSamples.length < 20) errorSamples.push(`${id} ${response.status}: ${text.slice(0, 300)}`);
      }
    } catch (error) {
      fail("network");
      if (errorSamples.length < 20) errorSamples.push(`${id}: ${String(error)}`);
    } finally {
      inFlight--;
      latencies.push(performance.now() - started);
    }
  };

  const start = performance.now();
  let n = 0;
  const schedule = setInterval(() => {
    // Catch up to the schedule: timers fire late under load, the rate must not sag with them.
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (n < due) void fire(n++);
  }, 10);
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, rssMiB(server.process.pid));
  }, 5000);
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, start + minute * 60_000 - performance.now()));
    const sorted = latencies.sort((a, b) => a - b);
    const rss = rssMiB(server.process.pid);
    const row: MinuteResult = {
      minute,
      requests: sorted.length,
      errors,
      p50Ms: round1(percentile(sorted, 50)),
      p99Ms: round1(percentile(sorted, 99)),
      maxMs: round1(sorted.at(-1) ?? 0),
      rssMiB: round1(rss),
      maxRssMiB: round1(Math.max(maxRss, rss)),
      errorKinds,
      load1: round1(loadavg()[0] ?? 0),
    };
    results.push(row);
    console.log(
      `minute ${String(minute).padStart(2)}: ${row.requests} requests, ${row.errors} errors, ` +
        `p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, max ${row.maxMs} ms, RSS ${row.rssMiB} MiB (max ${row.maxRssMiB}), ` +
        `load ${row.load1}${errors ? ` ${JSON.stringify(errorKinds)}` : ""}`,
    );
    latencies = [];
    errors = 0;
    errorKinds = {};
    maxRss = 0;
  }
  clearInterval(schedule);
  clearInterval(sampler);
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
} finally {
  await server.stop();
  await dataset.dispose();
}

mkdirSync(join(flags.out, ".."), { recursive: true });
writeFileSync(
  flags.out,
  `${JSON.stringify({ date: new Date().toISOString(), engine, rate, minutes, mix, results, errorSamples }, null, 2)}\n`,
);
console.log(`Wrote ${flags.out}`);
if (errorSamples.length > 0) console.log(`Errors:\n${errorSamples.join("\n")}`);
