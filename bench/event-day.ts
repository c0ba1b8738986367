import { setTimeout as sleep } from "node:timers/promises";
import { type LoadGenerator, luaString, runRound } from "./load.js";
import type { ChildServer } from "./processes.js";
import { checkInScenario, scenarios } from "./scenarios.js";
import { cacheCounters } from "./server-metrics.js";

/** What the event-day mix measured. */
export interface EventDayResult {
  readsPerSecond: number;
  readP99Ms: number;
  writesPerSecond: number;
  writeP99Ms: number;
  /** Response-cache hits among the reads (and writes' misses), from the server's own counters. */
  hitRatio: number;
  failures: number;
}

// Check-ins per second on the event day: a busy door.
const checkInsPerSecond = 50;

// The attendees the door checks in and out, pass after pass. Few, so that after the first pass every
// write changes something whatever state earlier scenarios left them in: a check-in of someone
// already in (or an undo of someone out) changes nothing and evicts nothing (round nineteen), and the
// event day measures the reads beside a door whose every write evicts the attendee pages.
const doorAttendees = 20;

/**
 * The event day: a check-in app's reads (agenda and attendee pages, alternating) from `connections`
 * connections as fast as the server answers, while check-ins (alternating with undos, passes over
 * 20 attendees) arrive at 50/s. A check-in must not evict the agenda, so the agenda stays a cache hit.
 */
export async function eventDay(options: {
  generator: LoadGenerator;
  server: ChildServer;
  metricsToken: string;
  projectId: string;
  token: string;
  attendeeIds: readonly string[];
  seconds: number;
  connections: number;
  reserve: (count: number) => number;
}): Promise<EventDayResult> {
  const list = scenarios(options.projectId, []);
  const agenda = list.find((s) => s.id === "agenda-hit");
  const attendees = list.find((s) => s.id === "attendees-hit");
  if (!agenda || !attendees) throw new Error("the event day needs the agenda and attendee scenarios");
  const agendaBody = agenda.body(0);
  const attendeesBody = attendees.body(0);
  const reads = {
    body: (n: number) => (n % 2 === 0 ? agendaBody : attendeesBody),
    lua: [
      `local a, b = ${luaString(agendaBody)}, ${luaString(attendeesBody)}`,
      "function body(n) if n % 2 == 0 then return a end return b end",
    ].join("\n"),
  };
  const headers = { "content-type": "application/json", authorization: `Bearer ${options.token}` };
  const url = `${options.server.url}/api/graphql`;
  // Warm the two answers into the cache, as a door app running all morning would have.
  for (const body of [agendaBody, attendeesBody]) {
    await (await fetch(url, { method: "POST", headers, body })).arrayBuffer();
  }

  const checkIn = checkInScenario(options.attendeeIds.slice(0, doorAttendees));
  const writeLatencies: number[] = [];
  let writeFailures = 0;
  let stop = false;
  const pending: Promise<void>[] = [];
  const writer = (async () => {
    let n = options.reserve(1_000_000);
    const interval = 1000 / checkInsPerSecond;
    const start = performance.now();
    let sent = 0;
    while (!stop) {
      const body = checkIn.body(n++);
      const began = performance.now();
      pending.push(
        fetch(url, { method: "POST", headers, body })
          .then(async (response) => {
            const text = await response.text();
            if (response.status !== 200 || text.includes('"errors"')) writeFailures += 1;
            writeLatencies.push(performance.now() - began);
          })
          .catch(() => {
            writeFailures += 1;
          }),
      );
      sent += 1;
      // Paced against the start, so a slow answer does not lower the arrival rate.
      const wait = start + sent * interval - performance.now();
      if (wait > 0) await sleep(wait);
    }
    return (performance.now() - start) / 1000;
  })();

  const before = await cacheCounters(options.server, options.metricsToken);
  const read = await runRound({
    generator: options.generator,
    url,
    seconds: options.seconds,
    connections: options.connections,
    headers,
    source: reads,
    reserve: options.reserve,
  });
  const after = await cacheCounters(options.server, options.metricsToken);
  stop = true;
  const writeSeconds = await writer;
  await Promise.all(pending);
  writeLatencies.sort((a, b) => a - b);
  const hits = after.hits - before.hits;
  const misses = after.misses - before.misses;
  return {
    readsPerSecond: read.requestsPerSecond,
    readP99Ms: read.p99Ms,
    writesPerSecond: writeLatencies.length / writeSeconds,
    writeP99Ms:
      Math.round((writeLatencies[Math.floor(writeLatencies.length * 0.99)] ?? Number.NaN) * 10) / 10,
    hitRatio: hits / Math.max(hits + misses, 1),
    failures: read.failures + writeFailures,
  };
}
