import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { globalId } from "../src/graphql/ids.js";
import { createLogger } from "../src/logger.js";
import { createServices } from "../src/services.js";
import { startEventgraph } from "./processes.js";
import { benchDatabase, seedCheckInEvent } from "./throwaway-database.js";

/**
 * `npm run bench -- --subscriptions [streams] [check-ins] [postgres://…]`: opens `streams` (1,000)
 * subscription streams on one server process, all following one project's check-ins, then checks
 * `check-ins` (30) attendees in through the API, one every 200 ms. Reports the server's resident
 * memory per open stream, and each event's latency from its commit (the check-in's timestamp,
 * taken in the write's transaction) to its receipt by a subscriber: over every delivery, and to the
 * last of the subscribers. On SQLite, or on a new PostgreSQL database (dropped at the end) of the
 * server the third argument names. Writes bench/results/subscriptions.json (-postgres.json).
 */

const streams = Number(process.argv[2] ?? 1000);
const checkIns = Number(process.argv[3] ?? 30);
const postgresServer = process.argv[4];
const subscription =
  "subscription ($p: ID!) { checkInChanged(projectId: $p) { attendee { checkIn { checkedInAt } } } }";
const checkIn = `mutation($input: CheckInAttendeeInput!) { checkInAttendee(input: $input) { userErrors { message } } }`;

const benchDb = await benchDatabase("subscriptions", postgresServer);
const databaseUrl = benchDb.url;
const env = {
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: "warn",
  STREAMS_PER_APP: String(streams + 10),
  STREAMS_PER_IP: String(streams + 10),
  MAX_CONNECTIONS: String(streams + 100),
  RATE_LIMIT_APP_POINTS_PER_HOUR: "10000000",
};

const config = loadConfig(env);
const database = openDatabase(config.databaseUrl);
const seeded = await (async () => {
  try {
    await migrateToLatest(database.db);
    const services = createServices(database, config, createLogger("silent"));
    const event = await seedCheckInEvent(services, "Subscription bench", checkIns);
    services.live.stop();
    return { projectId: event.projectId, token: event.token, attendees: event.attendees };
  } finally {
    await database.close();
  }
})();

/** Resident memory of a process now, in bytes (Linux). */
function rssBytes(pid: number | undefined): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

/** Latencies (ms) of each event (by the commit's timestamp) to each subscriber. */
const deliveries = new Map<string, number[]>();
const server = await startEventgraph(env);
const open: http.ClientRequest[] = [];

/** Opens one stream; resolves once the server has accepted it (status 200 and its first comment). */
function openStream(): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: subscription, variables: { p: seeded.projectId } });
    const request = http.request(
      `${server.url}/api/graphql/stream`,
      {
        method: "POST",
        agent: false,
        headers: {
          accept: "text/event-stream",
          "content-type": "application/json",
          authorization: `Bearer ${seeded.token}`,
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`stream refused: ${response.statusCode}`));
          return;
        }
        let partial = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          const receivedAt = Date.now();
          resolve();
          const messages = (partial + chunk).split("\n\n");
          partial = messages.pop() ?? "";
          for (const message of messages) {
            const data = /^data: (.*)$/m.exec(message)?.[1];
            if (!message.startsWith("event: next") || !data) continue;
            const at = (
              JSON.parse(data) as {
                data?: { checkInChanged?: { attendee?: { checkIn?: { checkedInAt: string } } } };
              }
            ).data?.checkInChanged?.attendee?.checkIn?.checkedInAt;
            if (!at) continue;
            const lags = deliveries.get(at) ?? [];
            lags.push(receivedAt - Date.parse(at));
            deliveries.set(at, lags);
          }
        });
      },
    );
    request.on("error", reject);
    request.end(body);
    open.push(request);
  });
}

const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

try {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const before = rssBytes(server.process.pid);
  const opening = performance.now();
  for (let i = 0; i < streams; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, streams - i) }, () => openStream()));
  }
  const openSeconds = (performance.now() - opening) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const after = rssBytes(server.process.pid);

  for (const id of seeded.attendees) {
    const response = await fetch(`${server.url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${seeded.token}` },
      body: JSON.stringify({
        query: checkIn,
        variables: { input: { attendeeId: globalId("Attendee", id) } },
      }),
    });
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const deadline = Date.now() + 30_000;
  const received = () => [...deliveries.values()].reduce((n, lags) => n + lags.length, 0);
  while (received() < streams * checkIns && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));

  const all = [...deliveries.values()].flat();
  const toLast = [...deliveries.values()].map((lags) => Math.max(...lags));
  const result = {
    engine: postgresServer ? "postgres" : "sqlite",
    streams,
    checkIns,
    opened: { seconds: Math.round(openSeconds * 10) / 10, perSecond: Math.round(streams / openSeconds) },
    delivered: `${received()} of ${streams * checkIns}`,
    commitToSubscriberMs: { p50: percentile(all, 0.5), p99: percentile(all, 0.99), max: Math.max(...all) },
    commitToLastSubscriberMs: { p50: percentile(toLast, 0.5), p99: percentile(toLast, 0.99) },
    serverRssMiB: { before: Math.round(before / 2 ** 20), withStreams: Math.round(after / 2 ** 20) },
    kibPerStream: Math.round((after - before) / streams / 102.4) / 10,
  };
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = postgresServer ? "subscriptions-postgres.json" : "subscriptions.json";
  writeFileSync(join("bench", "results", file), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  for (const request of open) request.destroy();
  await server.stop();
  await benchDb.drop();
}
