import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { createLogger } from "../src/logger.js";
import { systemActor } from "../src/modules/access/actor.js";
import { createServices } from "../src/services.js";
import { startEventgraph } from "./processes.js";
import { benchDatabase } from "./throwaway-database.js";

/**
 * `npm run bench -- --checkout`: the event page's checkout as buyers use it, on SQLite, or on a new
 * PostgreSQL database (dropped at the end) of the server a second argument names. Each buyer opens
 * step 2 (the signed form) and posts it: the order is priced, its seats claimed under the ticket
 * type's lock, its tickets registered and the buyer sent to the order's page. Bank transfer, the path
 * every online provider shares up to the provider's call. Reports orders per second and the post's
 * latency (p50, p99); writes bench/results/checkout.json (checkout-postgres.json).
 */

// `node dist/bench/checkout.js 200` for a quick try;
// `node dist/bench/checkout.js 1000 postgres://postgres@127.0.0.1:5432/postgres` on PostgreSQL;
// a third argument sets how many buyers check out at once (20).
const orders = Number(process.argv[2] ?? 1000);
const postgresServer = process.argv[3];
const concurrency = Number(process.argv[4] ?? 20);

const benchDb = await benchDatabase("checkout", postgresServer);
// Each buyer posts from an address of their own (X-Forwarded-For from the loopback proxy): the
// checkout's 60 orders an hour per address is a limit on one buyer, not on the event.
const env = { DATABASE_URL: benchDb.url, LOG_LEVEL: "warn", TRUST_PROXY: "127.0.0.1" };

const seeded = await (async () => {
  const config = loadConfig(env);
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db);
    const services = createServices(database, config, createLogger("silent"));
    const user = await services.users.create({
      email: "bench@example.test",
      name: "Bench",
      password: "bench bench bench",
    });
    const project = await services.projects.create(user.id, {
      name: "Checkout bench",
      timezone: "UTC",
      status: "PUBLISHED",
    });
    await services.orders.updateSettings(systemActor, project.id, {
      holdMinutes: 4_320,
      bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
      taxRateBasisPoints: 1_900,
    });
    const ticketType = await services.tickets.createTicketType(systemActor, {
      projectId: project.id,
      name: "Pass",
      priceMinor: 24_900,
      currency: "EUR",
      quantity: orders * 2,
      paymentMode: "BANK_TRANSFER",
    });
    return { projectId: project.id, ticketTypeId: ticketType.id };
  } finally {
    await database.close();
  }
})();

const server = await startEventgraph(env);
const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

/** One buyer: opens step 2, posts it; answers the post's latency in ms. */
async function checkout(n: number): Promise<number> {
  const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const headers = { "x-forwarded-for": address };
  const form = await fetch(`${server.url}/e/${seeded.projectId}/order?q.${seeded.ticketTypeId}=1`, {
    headers,
  });
  const html = await form.text();
  if (form.status !== 200) throw new Error(`step 2 answered ${form.status}: ${html.slice(0, 300)}`);
  const body = new URLSearchParams({
    idempotencyKey: hidden(html, "idempotencyKey"),
    issuedAt: hidden(html, "issuedAt"),
    signature: hidden(html, "signature"),
    [`q.${seeded.ticketTypeId}`]: "1",
    buyerName: `Buyer ${n}`,
    buyerEmail: `buyer-${n}@example.test`,
    "tickets.0.ticketTypeId": seeded.ticketTypeId,
    "tickets.0.name": `Guest ${n}`,
    "tickets.0.email": `guest-${n}@example.test`,
  });
  const started = performance.now();
  const placed = await fetch(`${server.url}/e/${seeded.projectId}/order`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body,
    redirect: "manual",
  });
  const latency = performance.now() - started;
  const location = placed.headers.get("location") ?? "";
  const ok = placed.status === 303 && location.includes("/orders/");
  // A refusal is counted, not fatal: a busy server answering 503 is part of what is measured.
  if (!ok) refusals.set(placed.status, (refusals.get(placed.status) ?? 0) + 1);
  await placed.body?.cancel();
  return latency;
}

const refusals = new Map<number, number>();

try {
  // A warm-up the figures leave out: the first requests compile and fill the server's caches.
  for (let n = 0; n < 20; n++) await checkout(orders + n);
  refusals.clear();
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < orders) latencies.push(await checkout(next++));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q: number) =>
    Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  const result = {
    engine: postgresServer ? "postgres" : "sqlite",
    orders,
    concurrency,
    // Whole checkouts (step 2's page and the post) per second, `concurrency` buyers at once.
    ordersPerSecond: Math.round((orders - [...refusals.values()].reduce((a, b) => a + b, 0)) / seconds),
    placeOrderMs: { p50: p(0.5), p99: p(0.99), max: p(1) },
    // Checkouts answered otherwise than with the order's page, by status (none expected).
    refused: Object.fromEntries(refusals),
  };
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = postgresServer ? "checkout-postgres.json" : "checkout.json";
  writeFileSync(join("bench", "results", file), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  await server.stop();
  await benchDb.drop();
}
