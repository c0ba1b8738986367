import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { connectRedis } from "../../src/cluster/redis.js";

/** The Redis the suite runs against (CI starts one on the default port). */
export const redisTestUrl = process.env.REDIS_URL_TEST ?? "redis://127.0.0.1:6379";

/** A key prefix no other test (or engineer's test run) uses, so tests share one Redis safely. */
export function uniqueRedisPrefix(): string {
  return `eventgraph-test:${randomUUID()}:`;
}

/** Connections opened by a test file; `closeAll` ends them so node:test can exit. */
export class RedisConnections {
  private readonly clients: Redis[] = [];

  /** Opens a new connection to the test Redis. */
  async open(): Promise<Redis> {
    const client = await connectRedis(redisTestUrl);
    // A test must end even if Redis goes away mid-run: give up after a few reconnects instead of
    // ioredis's default of retrying for ever (which keeps the test process alive).
    client.options.retryStrategy = (attempt) => (attempt > 5 ? null : 200);
    this.clients.push(client);
    return client;
  }

  /** Deletes the keys under `prefix` and closes every connection this object opened. */
  async closeAll(prefix?: string): Promise<void> {
    const [first] = this.clients;
    if (first && prefix) {
      const keys = await first.keys(`${prefix}*`);
      if (keys.length > 0) await first.del(...keys);
    }
    await Promise.all(this.clients.map((client) => client.quit()));
    this.clients.length = 0;
  }
}
