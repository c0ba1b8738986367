import { type LoadGenerator, type RoundResult, runRound } from "./load.js";
import { cpuSeconds } from "./processes.js";
import type { Scenario } from "./scenarios.js";
import type { GcCounters } from "./server-metrics.js";

// How the suite measures one scenario: the sides (the limit, Eventgraph, the peers) under the same
// load in alternating rounds, then the figures reported from those rounds. Apart from bench/suite.ts,
// which only starts the servers, walks the datasets and writes the report, so the measuring method
// can be read (and changed) in one place.

/**
 * A load round, the CPU time the side's process spent per request in it and, for an Eventgraph side,
 * its garbage collector's time per request and full collections.
 */
type MeasuredRound = RoundResult & { cpuUsPerRequest?: number; gcUsPerRequest?: number; fullGcs?: number };

/** The garbage collector's part of a side's rounds (Eventgraph sides only). */
export interface GcFigures {
  usPerRequest: number;
  fullPer1000Requests: number;
}

/** One scenario on one dataset, as reported. */
export interface ScenarioResult {
  dataset: string;
  scenario: string;
  title: string;
  cache: Scenario["cache"];
  requestsPerSecond: number;
  limitRequestsPerSecond: number;
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time per request (µs, mean of the rounds): steadier than req/s on a busy machine. */
  cpuUsPerRequest: number | undefined;
  gc: GcFigures | undefined;
  limitCpuUsPerRequest: number | undefined;
  /** Peak RSS of the server process so far (VmHWM, MiB). */
  peakRssMiB: number | undefined;
  /** The same of the compared Eventgraph (`--compare-tree`, `--compare-node-options`), measured as peer `compared`. */
  comparedPeakRssMiB?: number | undefined;
  responseBytes: number;
  failures: number;
  /** Ratio to the limit of each peer that answered this scenario's query, measured between the same rounds. */
  peers: Record<
    string,
    {
      ratio: number;
      p99Ms: number;
      cpuUsPerRequest: number | undefined;
      /** The peer's CPU per request over Eventgraph's, round by round (see pairedCpuRatios). */
      cpuVsEventgraph: PairedRatios | undefined;
      gc: GcFigures | undefined;
      dataIdentical: boolean;
    }
  >;
  rounds: { limit: MeasuredRound[]; eventgraph: MeasuredRound[] } & Record<string, MeasuredRound[]>;
}

/** The shape of every round of a run, from the suite's flags. */
interface RoundSettings {
  generator: LoadGenerator;
  connections: number;
  /** Length of a measured round. */
  seconds: number;
  /** Measured rounds per side. */
  rounds: number;
  warmupSeconds: number;
  /** Hands out request numbers, so no two rounds of the run send the same write. */
  reserve: (count: number) => number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

/** A ratio measured once per round: its median, and the lowest and highest round. */
export interface PairedRatios {
  median: number;
  low: number;
  high: number;
}

/**
 * One side's CPU per request over another's, taken per round (the two ran minutes apart at most,
 * seconds apart mostly) rather than as a ratio of means. On this shared host a whole round can cost
 * twice the next one for the same build, so the spread of these ratios is what a comparison can
 * resolve: an A/A run (the same build on both sides) shows it.
 */
export function pairedCpuRatios(side: MeasuredRound[], base: MeasuredRound[]): PairedRatios | undefined {
  const ratios = side
    .flatMap((round, i) => {
      const other = base[i]?.cpuUsPerRequest;
      return round.cpuUsPerRequest && other ? [round.cpuUsPerRequest / other] : [];
    })
    .sort((a, b) => a - b);
  if (ratios.length === 0) return undefined;
  const middle = ratios.length / 2;
  const median = Number.isInteger(middle)
    ? ((ratios[middle - 1] ?? 0) + (ratios[middle] ?? 0)) / 2
    : (ratios[Math.floor(middle)] ?? 0);
  const two = (x: number) => Math.round(x * 100) / 100;
  return { median: two(median), low: two(ratios[0] ?? 0), high: two(ratios[ratios.length - 1] ?? 0) };
}

/** Rounds a figure to one decimal for the report. */
export const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Warms up every side, then measures them in alternating rounds; `pids` names the process whose CPU
 * time is read per side (undefined: not measured), `gc` how to read a side's GC counters (read
 * outside the CPU window: a scrape costs the server more than a request).
 */
export async function measureSides(
  settings: RoundSettings,
  scenario: Scenario,
  headers: Record<string, string>,
  sides: Record<string, string>,
  pids: Record<string, number | undefined>,
  gc: Record<string, () => Promise<GcCounters>> = {},
): Promise<Record<string, MeasuredRound[]>> {
  const { generator, connections, reserve } = settings;
  const load = (url: string, secs: number) =>
    runRound({ generator, url, seconds: secs, connections, headers, source: scenario, reserve });
  // Warm-up: JIT, document and response caches, database pages; not measured.
  for (const url of Object.values(sides)) await load(url, settings.warmupSeconds);
  const rounds_: Record<string, MeasuredRound[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  // Sides alternate round by round, so a noisy neighbour on the machine hits them all alike, in
  // orders where each side follows every other one equally often (sideOrders).
  const entries = Object.entries(sides);
  const orders = sideOrders(entries.length);
  for (let r = 0; r < settings.rounds; r++) {
    const order = orders[r % orders.length] ?? [];
    for (const [name, url] of order.map((i) => entries[i] as [string, string])) {
      const gcBefore = await gc[name]?.();
      const before = cpuSeconds(pids[name]);
      const round: MeasuredRound = await load(url, settings.seconds);
      const after = cpuSeconds(pids[name]);
      const gcAfter = await gc[name]?.();
      if (before !== undefined && after !== undefined && round.requests > 0) {
        round.cpuUsPerRequest = Math.round(((after - before) * 1e6) / round.requests);
      }
      if (gcBefore && gcAfter && round.requests > 0) {
        round.gcUsPerRequest = Math.round(((gcAfter.seconds - gcBefore.seconds) * 1e6) / round.requests);
        round.fullGcs = gcAfter.full - gcBefore.full;
      }
      rounds_[name]?.push(round);
    }
  }
  return rounds_;
}

/**
 * The orders of `n` sides for successive rounds: a Williams design, in which every side comes right
 * after every other side equally often (within the rounds; for an odd `n` over two rounds' worth of
 * orders). A server's work outlasts its round (collections once the load stops, its database
 * settling), so the side after it runs on a busier machine. With the earlier rotation (L E C, E C L,
 * C L E) the compared build came after Eventgraph in four rounds of six, and A/A runs measured it
 * 1.18–1.21× dearer; with these orders the next A/A run measured 0.83–0.93×. So the order is one
 * bias of several on this host (docs/performance.md, Round seven), removed here at no cost.
 */
export function sideOrders(n: number): number[][] {
  // First row 0, 1, n-1, 2, n-2, …; each next row adds one to every entry (mod n).
  const first = [0];
  for (let i = 1; first.length < n; i++) {
    first.push(i);
    if (first.length < n) first.push(n - i);
  }
  const rows = first.map((_, r) => first.map((side) => (side + r) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}

/**
 * The reported figures of a scenario from its sides' rounds: every rate a ratio to the limit of the
 * same run; `agreement` says, per peer measured, whether it answered the same data.
 */
export function scenarioResult(options: {
  dataset: string;
  scenario: Scenario;
  rounds: Record<string, MeasuredRound[]>;
  agreement: Record<string, boolean>;
  peakRssMiB: number | undefined;
  comparedPeakRssMiB?: number | undefined;
  responseBytes: number;
}): ScenarioResult {
  const { scenario, agreement, rounds: rounds_ } = options;
  const cpuOf = (name: string) => {
    const measured = (rounds_[name] ?? []).flatMap((x) => x.cpuUsPerRequest ?? []);
    return measured.length > 0 ? Math.round(mean(measured)) : undefined;
  };
  const gcOf = (name: string): GcFigures | undefined => {
    const measured = (rounds_[name] ?? []).filter((x) => x.gcUsPerRequest !== undefined);
    const requests = measured.reduce((total, x) => total + x.requests, 0);
    if (requests === 0) return undefined;
    return {
      usPerRequest: Math.round(mean(measured.map((x) => x.gcUsPerRequest ?? 0))),
      fullPer1000Requests: round1(
        (measured.reduce((total, x) => total + (x.fullGcs ?? 0), 0) * 1000) / requests,
      ),
    };
  };
  const rps = (name: string) => mean((rounds_[name] ?? []).map((x) => x.requestsPerSecond));
  const worstP99 = (name: string) => round1(Math.max(...(rounds_[name] ?? []).map((x) => x.p99Ms)));
  const limitRequestsPerSecond = rps("limit");
  const ratioOf = (name: string) => Math.round((rps(name) / limitRequestsPerSecond) * 1000) / 1000;
  const eventgraphRounds = rounds_.eventgraph ?? [];
  const limitRounds = rounds_.limit ?? [];
  return {
    dataset: options.dataset,
    scenario: scenario.id,
    title: scenario.title,
    cache: scenario.cache,
    requestsPerSecond: Math.round(rps("eventgraph")),
    limitRequestsPerSecond: Math.round(limitRequestsPerSecond),
    ratio: ratioOf("eventgraph"),
    p50Ms: round1(mean(eventgraphRounds.map((x) => x.p50Ms))),
    // The worst round's p99: a tail that shows up once is still a tail.
    p99Ms: worstP99("eventgraph"),
    cpuUsPerRequest: cpuOf("eventgraph"),
    gc: gcOf("eventgraph"),
    limitCpuUsPerRequest: cpuOf("limit"),
    peakRssMiB: round1(options.peakRssMiB ?? Number.NaN),
    ...(options.comparedPeakRssMiB !== undefined && {
      comparedPeakRssMiB: round1(options.comparedPeakRssMiB),
    }),
    responseBytes: options.responseBytes,
    failures: Object.values(rounds_)
      .flat()
      .reduce((a, x) => a + x.failures, 0),
    peers: Object.fromEntries(
      Object.keys(agreement).map((name) => [
        name,
        {
          ratio: ratioOf(name),
          p99Ms: worstP99(name),
          cpuUsPerRequest: cpuOf(name),
          cpuVsEventgraph: pairedCpuRatios(rounds_[name] ?? [], eventgraphRounds),
          gc: gcOf(name),
          dataIdentical: agreement[name] === true,
        },
      ]),
    ),
    rounds: { ...rounds_, limit: limitRounds, eventgraph: eventgraphRounds },
  };
}
