import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

/**
 * The limit of the benchmark: a bare `node:http` server that reads each request body and answers
 * with the exact bytes Eventgraph answered for that scenario, precomputed. Run as its own process
 * (like the server under test) so it never shares a CPU core's time with the load generator.
 *
 * Usage: node dist/bench/limit-server.js <responses.json> [workers]; prints {"port": n} once listening.
 * With `workers` > 1 it forks that many processes sharing the port (node:cluster, as Eventgraph's
 * WEB_CONCURRENCY does), the limit for a two-process Eventgraph.
 * The file maps a path ("/agenda") to {contentType, body} (body as UTF-8 text).
 */

/** One precomputed answer of the limit server. */
export interface LimitResponse {
  contentType: string;
  body: string;
}

const [, , file, workersArg] = process.argv;
const workers = Number(workersArg ?? 1);
if (!file) {
  process.stderr.write("usage: limit-server <responses.json>\n");
  process.exit(2);
}
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  let listening = 0;
  cluster.on("listening", (_worker, address) => {
    listening += 1;
    if (listening === workers) process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  });
  process.on("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
    process.exit(0);
  });
} else {
  serve(file);
}

function serve(file: string): void {
  const routes = new Map<string, { headers: Record<string, string | number>; body: Buffer }>();
  for (const [path, response] of Object.entries(
    JSON.parse(readFileSync(file, "utf8")) as Record<string, LimitResponse>,
  )) {
    const body = Buffer.from(response.body, "utf8");
    // The same headers Eventgraph sends that matter on the wire; Node adds date and keep-alive itself.
    routes.set(path, {
      headers: {
        "content-type": response.contentType,
        "content-length": body.byteLength,
        "cache-control": "no-store",
      },
      body,
    });
  }

  const server = createServer((request, response) => {
    const route = routes.get(request.url ?? "");
    // The body is read to the end, as the real server must read it, before answering.
    request.on("data", () => {});
    request.on("end", () => {
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, route.headers).end(route.body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    // Workers report to the primary through cluster's "listening" event instead.
    if (cluster.isPrimary) process.stdout.write(`${JSON.stringify({ port })}\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}
