import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { globalId } from "../src/graphql/ids.js";
import { createLogger } from "../src/logger.js";
import { systemActor } from "../src/modules/access/actor.js";
import { guessMapping, parseAttendeeCsv } from "../src/modules/attendees/attendees-csv.js";
import { createServices, type Services } from "../src/services.js";
import { cpuSeconds, startEventgraph, unthrottled } from "./processes.js";
import { summarizeProfile } from "./profile.js";
import { benchDatabase, seedBenchEvent } from "./throwaway-database.js";

/**
 * `npm run bench -- --webhooks [count] [postgres://server] [--profile]`: webhook delivery to one
 * endpoint whose receiver takes 50 ms to answer each request, on SQLite or on a new PostgreSQL database (dropped at the
 * end) of the server the argument names. Eventgraph runs as its own process with
 * WEBHOOK_MAX_IN_FLIGHT from the environment (the default unless set). Two drills:
 *   1. a 10,000-row CSV import (run as the CLI runs it, in this process; the server finds the
 *      deliveries by its poll): the time from the import's start until every `attendee.registered`
 *      arrived, and the events per second the endpoint received from the first to the last;
 *   2. check-ins through the API at a steady 200 a second for 10 s: the time from each commit (the
 *      event's timestamp, taken in the write's transaction) to the receiver.
 * The CPU each delivered event of the import cost the server (and PostgreSQL's backends) is the
 * figure a busy host disturbs least. `BENCH_RECEIVER_MS` sets the receiver's answer time (0: at
 * once), `BENCH_CHECK_IN_SECONDS=0` skips drill 2, `--profile` runs the server under `--cpu-prof`
 * and prints where its CPU went. Writes bench/results/webhooks.json (webhooks-postgres.json).
 */

const postgresServer = process.argv.find((arg) => arg.startsWith("postgres"));
// `node dist/bench/webhooks.js 1000` for a quick try with a smaller import.
const importRows = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 10_000);
const checkInRate = 200;
const checkInSeconds = Number(process.env.BENCH_CHECK_IN_SECONDS ?? 10);
const answerMs = Number(process.env.BENCH_RECEIVER_MS ?? 50);
// `--profile`: the server runs under `--cpu-prof`, and where its CPU went is printed at the end.
const profile = process.argv.includes("--profile");
const profileDir = join("bench", "results", "profiles", "webhooks");
const checkIn = `mutation($input: CheckInAttendeeInput!) { checkInAttendee(input: $input) { userErrors { message } } }`;

const benchDb = await benchDatabase("webhooks", postgresServer);
const env = {
  DATABASE_URL: benchDb.url,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  // The server's default unless the environment sets it.
  ...(process.env.WEBHOOK_MAX_IN_FLIGHT ? { WEBHOOK_MAX_IN_FLIGHT: process.env.WEBHOOK_MAX_IN_FLIGHT } : {}),
  LOG_LEVEL: "warn",
  ...unthrottled,
};

const config = loadConfig(env);
const database = openDatabase(config.databaseUrl);
await migrateToLatest(database.db);
const services: Services = createServices(database, config, createLogger("silent"));

/** Each event the receiver got: its type, when it arrived and when its write committed. */
const receipts: { type: string; receivedAt: number; committedAt: number }[] = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", () => {
    const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type: string; timestamp: string };
    receipts.push({ type: event.type, receivedAt: Date.now(), committedAt: Date.parse(event.timestamp) });
    setTimeout(() => response.writeHead(204).end(), answerMs);
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const { owner: actor, project, app, token } = await seedBenchEvent(services, "Webhook bench", importRows);
await services.webhooks.configure(systemActor, {
  appId: app.id,
  url: receiverUrl,
  events: ["attendee.registered", "checkin.created"],
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Waits until `count` receipts of `type` arrived (or 120 s passed); answers them. */
async function receiptsOf(type: string, count: number) {
  const deadline = Date.now() + 120_000;
  const of = () => receipts.filter((r) => r.type === type);
  while (of().length < count && Date.now() < deadline) await sleep(50);
  return of();
}

/**
 * CPU seconds used so far by each PostgreSQL backend serving the bench's database (the server is
 * on this host), by process id; empty on SQLite. A backend that exits between two readings takes
 * its share with it (an undercount): the server's pool keeps its connections while it is busy.
 */
async function databaseCpu(): Promise<Map<number, number>> {
  if (!postgresServer) return new Map();
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(
    database.db,
  );
  return new Map(
    rows.flatMap(({ pid }): [number, number][] => {
      const seconds = cpuSeconds(pid);
      return seconds === undefined ? [] : [[pid, seconds]];
    }),
  );
}

let server: Awaited<ReturnType<typeof startEventgraph>> | undefined;
try {
  // 1. The import, before the server starts: its events wait in the outbox, and the server's
  // dispatcher sends them from its start, so the rate measured is the dispatcher's, not the import's.
  const rows = Array.from({ length: importRows }, (_, i) => `Person ${i},p${i}@example.org,Standard`);
  const parsed = await parseAttendeeCsv(`name,email,ticket type\n${rows.join("\n")}`);
  const importStarted = Date.now();
  await services.attendeeFiles.importRows(actor, project.id, parsed, guessMapping(parsed.headers), {
    dryRun: false,
    sendTickets: false,
  });
  const importSeconds = (Date.now() - importStarted) / 1000;
  console.error(`imported ${importRows} rows in ${importSeconds} s`);
  const serverStarted = Date.now();
  if (profile) rmSync(profileDir, { recursive: true, force: true });
  server = await startEventgraph(env, profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []);
  const ready = Date.now();
  const cpuAtReady = cpuSeconds(server.process.pid) ?? Number.NaN;
  const databaseCpuAtReady = await databaseCpu();
  const registered = await receiptsOf("attendee.registered", importRows);
  const first = Math.min(...registered.map((r) => r.receivedAt));
  const last = Math.max(...registered.map((r) => r.receivedAt));
  // What the server spent sending them: on a shared host the rate says more of the others' load.
  const drainCpuSeconds = (cpuSeconds(server.process.pid) ?? Number.NaN) - cpuAtReady;
  let drainDatabaseCpuSeconds = 0;
  for (const [pid, seconds] of await databaseCpu()) {
    drainDatabaseCpuSeconds += seconds - (databaseCpuAtReady.get(pid) ?? 0);
  }

  console.error(`all delivered ${(last - ready) / 1000} s after the server was ready`);
  // 2. Check-ins at a steady rate, each request sent on time whatever the earlier ones are doing.
  const attendees = await database.db
    .selectFrom("attendees")
    .select("id")
    .where("project_id", "=", project.id)
    .limit(checkInRate * checkInSeconds)
    .execute();
  const started = performance.now();
  const failures: string[] = [];
  await Promise.all(
    attendees.map(async ({ id }, i) => {
      const at = started + (i * 1000) / checkInRate;
      await sleep(Math.max(0, at - performance.now()));
      try {
        const response = await fetch(`${server?.url}/api/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({
            query: checkIn,
            variables: { input: { attendeeId: globalId("Attendee", id) } },
          }),
        });
        const answer = (await response.json()) as { errors?: unknown[] };
        if (response.status !== 200 || answer.errors) failures.push(JSON.stringify(answer));
      } catch (error) {
        // A refused or dropped connection is a failed check-in, not the end of the drill.
        failures.push(`${error} (${(error as Error).cause ?? "no cause"})`);
      }
    }),
  );
  const checkedIn = attendees.length - failures.length;
  const lags = (await receiptsOf("checkin.created", checkedIn))
    .map((r) => r.receivedAt - r.committedAt)
    .sort((a, b) => a - b);

  const result = {
    engine: postgresServer ? "postgres" : "sqlite",
    receiverAnswerMs: answerMs,
    maxInFlightPerEndpoint: config.webhooks.maxInFlight,
    import: {
      rows: importRows,
      importSeconds: Math.round(importSeconds * 10) / 10,
      delivered: registered.length,
      serverStartSeconds: Math.round((ready - serverStarted) / 100) / 10,
      allDeliveredSecondsAfterReady: Math.round((last - ready) / 100) / 10,
      eventsPerSecond: Math.round(registered.length / ((last - first) / 1000)),
      serverCpuMsPerEvent: Math.round((drainCpuSeconds * 1000 * 100) / registered.length) / 100,
      // PostgreSQL's own processes (SQLite's work is inside the server's figure).
      databaseCpuMsPerEvent: postgresServer
        ? Math.round((drainDatabaseCpuSeconds * 1000 * 100) / registered.length) / 100
        : undefined,
    },
    steady: {
      checkInsPerSecond: checkInRate,
      checkIns: checkedIn,
      failedCheckIns: failures.length,
      delivered: lags.length,
      commitToReceiptMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags.at(-1) },
    },
  };
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = postgresServer ? "webhooks-postgres.json" : "webhooks.json";
  writeFileSync(join("bench", "results", file), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  if (failures.length > 0) console.error(`first failed check-in: ${failures[0]}`);
} finally {
  await server?.stop();
  receiver.close();
  await database.close();
  await benchDb.drop();
}
if (profile) {
  for (const file of readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"))) {
    process.stdout.write(`\nCPU profile ${file}:\n${summarizeProfile(join(profileDir, file), 40)}\n`);
  }
}
