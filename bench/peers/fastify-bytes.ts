import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import type { LimitResponse } from "../limit-server.js";

/**
 * The floor of a cache hit through Fastify: one Fastify route per scenario (its own JSON body parser,
 * no hooks) answering with the exact bytes Eventgraph answered, precomputed, as the limit server
 * does over bare `node:http`. Issue #11 asks that a hit cost "little more than Fastify sending
 * stored bytes"; this peer is that measure, in the same rounds as the rest.
 *
 * Usage: node dist/bench/peers/fastify-bytes.js <responses.json>; prints {"port": n} once listening.
 */
const [, , file] = process.argv;
if (!file) {
  process.stderr.write("usage: fastify-bytes <responses.json>\n");
  process.exit(2);
}
const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
const responses = JSON.parse(readFileSync(file, "utf8")) as Record<string, LimitResponse>;
for (const [path, response] of Object.entries(responses)) {
  const body = Buffer.from(response.body, "utf8");
  app.post(path, (_request, reply) =>
    reply.header("cache-control", "no-store").type(response.contentType).send(body),
  );
}
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
