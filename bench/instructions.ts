import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type CountedServer, missingCallgrindTool, startCounted } from "./callgrind.js";
import { type Dataset, measureOnDatasets } from "./datasets.js";
import { freePort, unthrottled } from "./processes.js";
import { referenceResponse, registeredAttendeeIds, type Scenario, scenarios } from "./scenarios.js";
import { SequentialClient } from "./sequential-client.js";

/**
 * `npm run bench -- --instructions`: the machine instructions a server process executes per
 * request, counted by valgrind's callgrind (bench/callgrind.ts) while one client sends a scenario's
 * requests one after another. CPU time on this shared host moves by a fifth between rounds; an
 * instruction count does not depend on what else the host runs: two runs agree within 2 % (small
 * hits 7 %). Each server is uninstrumented (about ten times slower than native) through start-up and
 * each scenario's warm-up, then counted for the measured requests. System calls' kernel time is not
 * counted: loopback writes and reads cost the same whoever makes them.
 *
 * Beside each Eventgraph tree, and counted the same way, the bench's peers: on SQLite, merc-db
 * (Mercurius + graphql-jit + DataLoader over the same file: the figure a read is to beat) for the
 * reads, and for hits the Fastify floor (Fastify sending the bytes Eventgraph answered): a ratio to
 * them holds where CPU-time ratios do not. `--no-peers` leaves them out.
 *
 * Each scenario is counted in `--windows` windows of `--requests` requests, and the median window is
 * its figure: a full mark-compact falls into a window now and then (one added 700,000 instructions
 * per request to a window of 300 small misses), and the median leaves it out while the young
 * collections every window has stay in.
 *
 * Flags: `--datasets sqlite1,postgres1`, `--scenarios` (default: every read and the check-in),
 * `--requests` (per window, default 300), `--windows` (default 5), `--warmup` (default 8000: with `--trace-opt`, a server
 * under small hits still optimized 74 functions in its second 4,000 requests and 6 in its fourth;
 * after 2,000, a quarter of a hit's count was TurboFan compiling), `--compare-tree <dir>` (another
 * built checkout), `--postgres <server url>`, `--no-peers`.
 * Writes bench/results/instructions.json. Needs valgrind (Debian package `valgrind`).
 */

const { values: flags } = parseArgs({
  options: {
    datasets: { type: "string", default: "sqlite1" },
    scenarios: {
      type: "string",
      default: "small-hit,small-miss,agenda-hit,agenda-miss,attendees-hit,attendees-miss,checkin",
    },
    requests: { type: "string", default: "300" },
    windows: { type: "string", default: "5" },
    warmup: { type: "string", default: "8000" },
    "compare-tree": { type: "string" },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    peers: { type: "boolean", default: true },
    out: { type: "string", default: join("bench", "results", "instructions.json") },
  },
  allowNegative: true,
});
const requests = Number(flags.requests);
const windows = Number(flags.windows);
const warmup = Number(flags.warmup);
const wanted = (flags.scenarios ?? "").split(",").filter(Boolean);

const missing = missingCallgrindTool();
if (missing) {
  process.stderr.write(`${missing} is missing: apt-get install -y valgrind\n`);
  process.exit(1);
}

interface InstructionsResult {
  dataset: string;
  scenario: string;
  /** An Eventgraph tree (`.` is this one), or a peer: `merc-db`, `fastify`. */
  side: string;
  /** The median of `windows`. */
  instructionsPerRequest: number;
  /** Instructions per request of each window, in the order counted. */
  windows: number[];
}

// Request numbers count on across scenarios and sides: the trees share one database, and check-ins
// starting again from the first attendee would find them already checked in.
let nextRequest = 0;

/** Counts each scenario on `server` after its warm-up; `path` is where the server answers it. */
async function countScenarios(
  server: CountedServer,
  list: readonly Scenario[],
  token: string,
  path: (scenario: Scenario) => string = () => "/api/graphql",
): Promise<Map<string, number[]>> {
  const client = new SequentialClient(server.url, token);
  const counts = new Map<string, number[]>();
  try {
    for (const scenario of list) {
      const send = () => client.send(scenario, nextRequest++, path(scenario));
      for (let i = 0; i < warmup; i++) await send();
      const perWindow: number[] = [];
      for (let w = 0; w < windows; w++) {
        const total = await server.count(async () => {
          for (let i = 0; i < requests; i++) await send();
        });
        perWindow.push(Math.round(total / requests));
      }
      counts.set(scenario.id, perWindow);
    }
  } finally {
    client.close();
  }
  return counts;
}

// The answers of this tree's hits, for the Fastify floor to send: taken by the first tree measured.
let hitAnswers: Record<string, { contentType: string; body: string }> = {};

async function measureEventgraph(dataset: Dataset, tree: string): Promise<InstructionsResult[]> {
  const port = await freePort();
  const env = { ...unthrottled, DATABASE_URL: dataset.databaseUrl, LOG_LEVEL: "warn", PORT: String(port) };
  const server = await startCounted([join(tree, "dist", "src", "main.js")], env, { port });
  try {
    const attendeeIds = await registeredAttendeeIds(server.url, dataset.projectId, dataset.token, 10);
    const list = scenarios(dataset.projectId, attendeeIds).filter((s) => wanted.includes(s.id));
    const counts = await countScenarios(server, list, dataset.token);
    if (tree === ".") {
      hitAnswers = {};
      for (const scenario of list.filter((s) => s.cache === "hit"))
        hitAnswers[`/${scenario.id}`] = await referenceResponse(server.url, scenario, dataset);
    }
    return resultsOf(dataset, tree, counts);
  } finally {
    await server.stop();
  }
}

/** merc-db on the reads of a SQLite dataset, and the Fastify floor on its hits. */
async function measurePeers(dataset: Dataset): Promise<InstructionsResult[]> {
  const list = scenarios(dataset.projectId, []).filter((s) => wanted.includes(s.id));
  const results: InstructionsResult[] = [];
  const reads = list.filter((s) => s.cache !== "write");
  if (dataset.engine === "sqlite" && reads.length > 0) {
    const file = dataset.databaseUrl.replace(/^sqlite:/, "");
    const peer = await startCounted(
      [join("dist", "bench", "peers", "graphql-peer.js"), file],
      {},
      "port-line",
    );
    try {
      results.push(...resultsOf(dataset, "merc-db", await countScenarios(peer, reads, dataset.token)));
    } finally {
      await peer.stop();
    }
  }
  const hits = list.filter((s) => hitAnswers[`/${s.id}`]);
  if (hits.length === 0) return results;
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-floor-"));
  const file = join(dir, "responses.json");
  writeFileSync(file, JSON.stringify(hitAnswers));
  const floor = await startCounted(
    [join("dist", "bench", "peers", "fastify-bytes.js"), file],
    {},
    "port-line",
  );
  try {
    const counts = await countScenarios(floor, hits, dataset.token, (s) => `/${s.id}`);
    results.push(...resultsOf(dataset, "fastify", counts));
  } finally {
    await floor.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function resultsOf(dataset: Dataset, side: string, counts: Map<string, number[]>): InstructionsResult[] {
  return [...counts].map(([scenario, perWindow]) => ({
    dataset: dataset.name,
    scenario,
    side,
    instructionsPerRequest: median(perWindow),
    windows: perWindow,
  }));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : Math.round(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}

const all: InstructionsResult[] = await measureOnDatasets(
  flags.datasets ?? "",
  flags["compare-tree"],
  flags.postgres ?? "",
  async (dataset, tree) => {
    const results = await measureEventgraph(dataset, tree);
    // After this tree's (first) one, which took the hits' answers for the floor.
    if (flags.peers && tree === ".") results.push(...(await measurePeers(dataset)));
    return results;
  },
);

const pad = (value: unknown, width: number) => String(value).padStart(width);
process.stdout.write(
  `Instructions per request (callgrind; the median of ${windows} windows of ${requests} sequential requests\n` +
    `after ${warmup} of warm-up, with the lowest and highest window; other sides as a multiple of this tree's)\n` +
    `${pad("dataset", 12)} ${pad("scenario", 15)} ${pad("instructions", 13)} ${pad("windows", 21)}  side\n`,
);
for (const r of all) {
  const base = all.find((b) => b.side === "." && b.dataset === r.dataset && b.scenario === r.scenario);
  const versus =
    r.side !== "." && base
      ? ` (${(r.instructionsPerRequest / base.instructionsPerRequest).toFixed(3)}×)`
      : "";
  process.stdout.write(
    `${pad(r.dataset, 12)} ${pad(r.scenario, 15)} ${pad(r.instructionsPerRequest.toLocaleString("en"), 13)} ${pad(range(r.windows), 21)}  ${r.side}${versus}\n`,
  );
}
function range(values: readonly number[]): string {
  const fmt = (n: number) => n.toLocaleString("en");
  return `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
}

mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(
  flags.out ?? "",
  `${JSON.stringify({ date: new Date().toISOString(), requests, windows, warmup, results: all }, null, 2)}\n`,
);
