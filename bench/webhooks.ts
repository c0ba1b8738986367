import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { globalId } from "../src/graphql/ids.js";
import { createLogger } from "../src/logger.js";
import { systemActor } from "../src/modules/access/actor.js";
import { createServices } from "../src/services.js";
import { startEventgraph } from "./processes.js";
import { benchDatabase, seedCheckInEvent } from "./throwaway-database.js";

/**
 * `npm run bench -- --webhooks`: 1,000 check-ins through the API with no subscriber, then 1,000 with
 * a local receiver subscribed to `checkin.created`, on SQLite, or on a new PostgreSQL database
 * (dropped at the end) of the server a second argument names. Reports the API's check-in throughput
 * both ways, events delivered per second and the time from commit (the event's timestamp, taken in
 * the write's transaction) to receipt. Writes bench/results/webhooks.json (webhooks-postgres.json).
 */

// `node dist/bench/webhooks.js 100` for a quick try;
// `node dist/bench/webhooks.js 300 postgres://postgres@127.0.0.1:5432/postgres` on PostgreSQL.
const checkIns = Number(process.argv[2] ?? 1000);
const postgresServer = process.argv[3];
const concurrency = 20;
const checkIn = `mutation($input: CheckInAttendeeInput!) { checkInAttendee(input: $input) { userErrors { message } } }`;

const benchDb = await benchDatabase("webhooks", postgresServer);
const databaseUrl = benchDb.url;
const env = { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", LOG_LEVEL: "warn" };

async function withServices<T>(
  work: (services: ReturnType<typeof createServices>) => Promise<T>,
): Promise<T> {
  const config = loadConfig(env);
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    return await work(createServices(database, config, createLogger("silent")));
  } finally {
    await database.close();
  }
}

const seeded = await withServices(async (services) => {
  const event = await seedCheckInEvent(services, "Webhook bench", checkIns * 2);
  return { appId: event.appId, token: event.token, attendees: event.attendees };
});

const receipts: { receivedAt: number; committedAt: number }[] = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", () => {
    const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type: string; timestamp: string };
    if (event.type === "checkin.created")
      receipts.push({ receivedAt: Date.now(), committedAt: Date.parse(event.timestamp) });
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const server = await startEventgraph(env);

/** Checks in `ids` through the API, `concurrency` at a time; answers check-ins per second. */
async function checkInAll(ids: string[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const id = ids[next++] ?? "";
        const response = await fetch(`${server.url}/api/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${seeded.token}` },
          body: JSON.stringify({
            query: checkIn,
            variables: { input: { attendeeId: globalId("Attendee", id) } },
          }),
        });
        const answer = (await response.json()) as { errors?: unknown[] };
        if (response.status !== 200 || answer.errors)
          throw new Error(`check-in failed: ${JSON.stringify(answer)}`);
      }
    }),
  );
  return ids.length / ((performance.now() - started) / 1000);
}

try {
  const without = await checkInAll(seeded.attendees.slice(0, checkIns));
  await withServices((services) =>
    services.webhooks.configure(systemActor, {
      appId: seeded.appId,
      url: receiverUrl,
      events: ["checkin.created"],
    }),
  );
  const startedB = Date.now();
  const withSubscription = await checkInAll(seeded.attendees.slice(checkIns));
  const deadline = Date.now() + 120_000;
  while (receipts.length < checkIns && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const lastReceipt = Math.max(...receipts.map((r) => r.receivedAt));
  const lags = receipts.map((r) => r.receivedAt - r.committedAt).sort((a, b) => a - b);
  const p = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? Number.NaN;
  const result = {
    engine: postgresServer ? "postgres" : "sqlite",
    checkIns,
    concurrency,
    delivered: receipts.length,
    eventsPerSecond: Math.round(receipts.length / ((lastReceipt - startedB) / 1000)),
    commitToReceiptMs: { p50: p(0.5), p99: p(0.99), max: lags.at(-1) },
    checkInsPerSecond: { without: Math.round(without), withSubscription: Math.round(withSubscription) },
    throughputChange: `${Math.round((withSubscription / without - 1) * 1000) / 10} %`,
  };
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = postgresServer ? "webhooks-postgres.json" : "webhooks.json";
  writeFileSync(join("bench", "results", file), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  await server.stop();
  receiver.close();
  await benchDb.drop();
}
