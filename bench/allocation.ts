import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Dataset, measureOnDatasets } from "./datasets.js";
import { HeapSampler } from "./heap-sampling.js";
import { startEventgraph, unthrottled } from "./processes.js";
import { registeredAttendeeIds, scenarios } from "./scenarios.js";
import { SequentialClient } from "./sequential-client.js";

/**
 * `npm run bench -- --allocation`: the bytes a request makes the server allocate, and where, per
 * scenario, while one client sends the bench's requests one after another to the real server.
 * Unlike CPU time and request rates, which this shared 2-core host disturbs by ±20–30 % between
 * rounds, these counts repeat: a change that allocates less shows here when a CPU A/B cannot
 * resolve it (the garbage collector's share of a miss's CPU is 10–27 %).
 *
 * The bytes come from V8's sampling heap profiler (heap-sampling.ts), which usually repeats within
 * half a per cent; one run in round thirteen was off by a tenth, so compare a small change twice.
 * The GC trace (`--trace-gc-nvp`) gives the bytes promoted to the old generation and the GC pauses.
 * Until round fourteen they did not repeat: a server process settled by chance in a regime of high
 * or low promotion (allocation-site pretenuring, now off: src/v8-flags.ts). In three runs since,
 * the promoted bytes repeated within 0.1 KiB but once (an agenda miss at 3.9 KiB against 2.5–2.7);
 * the trace's own `allocated` count is still not used.
 *
 * Flags: `--datasets sqlite1,postgres1`, `--scenarios attendees-miss,…` (default: the misses and
 * check-ins), `--requests` (measured, default 2000), `--warmup` (default 500), `--sites` (print the
 * largest allocation sites of each scenario; always in the results), `--compare-tree <dir>` (another
 * built checkout, measured the same way), `--postgres <server url>`. Writes
 * bench/results/allocation.json.
 */

const { values: flags } = parseArgs({
  options: {
    datasets: { type: "string", default: "sqlite1" },
    scenarios: { type: "string", default: "small-miss,agenda-miss,attendees-miss,checkin" },
    requests: { type: "string", default: "2000" },
    warmup: { type: "string", default: "500" },
    sites: { type: "boolean", default: false },
    "compare-tree": { type: "string" },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    out: { type: "string", default: join("bench", "results", "allocation.json") },
  },
});
const requests = Number(flags.requests);
const warmup = Number(flags.warmup);
const wanted = (flags.scenarios ?? "").split(",").filter(Boolean);

/** One GC event of the trace: bytes promoted since the previous one, pause in ms. */
interface GcEvent {
  promoted: number;
  pauseMs: number;
}

/** What one scenario cost per request on one tree. */
interface AllocationResult {
  dataset: string;
  scenario: string;
  tree: string;
  /** Sampled by the heap profiler. */
  allocatedKiB: number;
  /** From the GC trace: these two repeat less well than the sampled bytes. */
  promotedKiB: number;
  gcMsPer1000: number;
  gcEvents: number;
  /** The largest allocation sites, KiB per request. */
  sites: { site: string; kib: number }[];
}

// A line of `--trace-gc-nvp`: "[pid:isolate] 123 ms: pause=1.5 … allocated=14150392 promoted=475248 …".
function parseGcLine(line: string): GcEvent | undefined {
  const field = (name: string) => new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1];
  const promoted = field("promoted");
  if (promoted === undefined) return undefined;
  return { promoted: Number(promoted), pauseMs: Number(field("pause") ?? 0) };
}

// The n of the next body, counting on across scenarios and trees as the main suite's rounds do: the
// trees share one database, and check-ins starting again from the first attendee would find them
// already checked in by the previous tree (a refusal, not a check-in).
let nextRequest = 0;

/** Sends requests until the server reports a GC; returns how many it sent. */
async function untilGc(events: readonly GcEvent[], sendOne: () => Promise<void>): Promise<number> {
  const seen = events.length;
  let sent = 0;
  while (events.length === seen) {
    // A young generation is at most 16 MiB, and the smallest request allocates tens of KiB.
    if (sent === 100_000) throw new Error("The server reported no GC: is --trace-gc-nvp printing?");
    await sendOne();
    sent++;
  }
  return sent;
}

async function measureTree({ name: dataset, databaseUrl, projectId, token }: Dataset, root: string) {
  const events: GcEvent[] = [];
  const server = await startEventgraph(
    { DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", ...unthrottled },
    ["--trace-gc-nvp", "--inspect=127.0.0.1:0"],
    root,
    (line) => {
      const event = parseGcLine(line);
      if (event) events.push(event);
    },
  );
  const results: AllocationResult[] = [];
  const sampler = await HeapSampler.of(server);
  const client = new SequentialClient(server.url, token);
  try {
    const attendeeIds = await registeredAttendeeIds(server.url, projectId, token, 10);
    for (const scenario of scenarios(projectId, attendeeIds).filter((s) => wanted.includes(s.id))) {
      const sendOne = () => client.send(scenario, nextRequest++);
      for (let i = 0; i < warmup; i++) await sendOne();
      // The GC window runs from one GC to another, so that its promoted bytes and pauses are whole
      // young generations' (up to 16 MiB each, all of a small query's window). It comes before
      // sampling, which slows the collector down.
      await untilGc(events, sendOne);
      const from = events.length;
      for (let i = 0; i < requests; i++) await sendOne();
      const sent = requests + (await untilGc(events, sendOne));
      const window = events.slice(from);
      await sampler.start();
      for (let i = 0; i < requests; i++) await sendOne();
      const sites = [...(await sampler.stop())].sort((a, b) => b[1] - a[1]);
      const sum = (key: keyof GcEvent) => window.reduce((total, event) => total + event[key], 0);
      const perRequestKiB = (bytes: number) => Math.round((bytes / requests / 1024) * 10) / 10;
      results.push({
        dataset,
        scenario: scenario.id,
        tree: root,
        allocatedKiB: Math.round(sites.reduce((total, [, bytes]) => total + bytes, 0) / requests / 1024),
        promotedKiB: Math.round((sum("promoted") / sent / 1024) * 10) / 10,
        gcMsPer1000: Math.round((sum("pauseMs") / sent) * 1000),
        gcEvents: window.length,
        sites: sites.slice(0, 12).map(([site, bytes]) => ({ site, kib: perRequestKiB(bytes) })),
      });
    }
  } finally {
    client.close();
    sampler.close();
    await server.stop();
  }
  return results;
}

const all: AllocationResult[] = await measureOnDatasets(
  flags.datasets ?? "",
  flags["compare-tree"],
  flags.postgres ?? "",
  measureTree,
);

const pad = (value: unknown, width: number) => String(value).padStart(width);
process.stdout.write(
  `Allocation per request (${requests} sequential requests after ${warmup} of warm-up; bytes sampled by V8's heap profiler, promotion and pauses from its GC trace, which repeat less well)\n` +
    `${pad("dataset", 12)} ${pad("scenario", 15)} ${pad("KiB alloc", 10)} ${pad("KiB promoted", 13)} ${pad("GC ms/1000", 11)}  tree\n`,
);
for (const r of all) {
  const base = all.find((b) => b.tree === "." && b.dataset === r.dataset && b.scenario === r.scenario);
  const versus =
    r.tree !== "." && base ? ` (${(r.allocatedKiB / base.allocatedKiB).toFixed(2)}× allocated)` : "";
  process.stdout.write(
    `${pad(r.dataset, 12)} ${pad(r.scenario, 15)} ${pad(r.allocatedKiB, 10)} ${pad(r.promotedKiB, 13)} ${pad(r.gcMsPer1000, 11)}  ${r.tree}${versus}\n`,
  );
  if (flags.sites) {
    for (const { site, kib } of r.sites) process.stdout.write(`${pad(kib, 40)}  ${site}\n`);
  }
}
mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(
  flags.out ?? "",
  `${JSON.stringify({ date: new Date().toISOString(), requests, warmup, results: all }, null, 2)}\n`,
);
