import type { GcFigures, ScenarioResult } from "./scenario-rounds.js";

// The suite's table on stdout: one row per scenario, then the compared build's and the GC's lines.
// Column merc-db is the Mercurius peer over the same SQLite data: the reader, or for a write the writer.

const columns = [
  "dataset",
  "scenario",
  "cache",
  "req/s",
  "limit",
  "ratio",
  "merc-db",
  "merc-mem",
  "fastify",
  "p50 ms",
  "p99 ms",
  "RSS MiB",
  "µs/req",
  "db µs",
  "mem µs",
  "fst µs",
  "lim µs",
];
const widths = [14, 15, 6, 8, 8, 6, 8, 8, 8, 7, 7, 8, 7, 7, 7, 7, 7];
function printLine(cells: (string | number | undefined)[]): void {
  process.stdout.write(`${cells.map((cell, i) => String(cell ?? "").padStart(widths[i] ?? 8)).join(" ")}\n`);
}
export function printRow(r: ScenarioResult): void {
  printLine([
    r.dataset,
    r.scenario,
    r.cache,
    r.requestsPerSecond,
    r.limitRequestsPerSecond,
    r.ratio.toFixed(2),
    (r.peers["mercurius-sqlite"] ?? r.peers["mercurius-writes"])?.ratio.toFixed(2),
    r.peers["mercurius-memory"]?.ratio.toFixed(2),
    r.peers["fastify-bytes"]?.ratio.toFixed(2),
    r.p50Ms,
    r.p99Ms,
    r.peakRssMiB,
    r.cpuUsPerRequest,
    (r.peers["mercurius-sqlite"] ?? r.peers["mercurius-writes"])?.cpuUsPerRequest,
    r.peers["mercurius-memory"]?.cpuUsPerRequest,
    r.peers["fastify-bytes"]?.cpuUsPerRequest,
    r.limitCpuUsPerRequest,
  ]);
  const compared = r.peers.compared;
  if (compared) {
    const cpu = compared.cpuUsPerRequest;
    const paired = compared.cpuVsEventgraph;
    const relative =
      cpu && r.cpuUsPerRequest
        ? ` (${(cpu / r.cpuUsPerRequest).toFixed(2)}× this tree's` +
          (paired ? `; per round ${paired.low}–${paired.high}, median ${paired.median})` : ")")
        : "";
    process.stdout.write(
      `  compared: ratio ${compared.ratio.toFixed(3)}, p99 ${compared.p99Ms} ms, ${cpu ?? "?"} µs/req${relative}, ` +
        `RSS ${r.comparedPeakRssMiB ?? "?"} MiB\n`,
    );
  }
  if (r.gc) {
    const full = (gc: GcFigures) => `${gc.usPerRequest} µs/req, ${gc.fullPer1000Requests} full per 1,000 req`;
    const other = r.peers.compared?.gc;
    process.stdout.write(`  gc: ${full(r.gc)}${other ? `; compared ${full(other)}` : ""}\n`);
  }
  if (r.failures > 0) process.stdout.write(`  !! ${r.failures} failed requests in ${r.scenario}\n`);
}

/** The column titles. */
export function printHeader(): void {
  printLine(columns);
}
