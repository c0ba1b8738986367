import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { connectRedis } from "./redis.js";

/**
 * What a process shares with the others through Redis (when configured): rate limits and account
 * throttles. Revocations and cache invalidations never travel through Redis: the database announces
 * them itself (PostgreSQL's change feed, SQLite's data_version; docs/runtime.md), so a Redis outage
 * cannot let a revoked app keep reading.
 */
export interface Cluster {
  redis: Redis | undefined;
  /** Prefix of every Redis key this deployment uses. */
  keyPrefix: string | undefined;
  /** What /readyz reports about Redis; undefined when REDIS_URL is not set. */
  readiness(): { status: "ok" | "degraded"; detail?: string } | undefined;
  /** Closes the Redis connection. */
  close(): Promise<void>;
}

/** A single process on its own: no Redis. */
export function localCluster(): Cluster {
  return {
    redis: undefined,
    keyPrefix: undefined,
    readiness: () => undefined,
    close: async () => {},
  };
}

/**
 * Connects to REDIS_URL when it is set (failing the start-up if Redis does not answer), else
 * returns the local cluster. Call once per process and `close()` it on shutdown.
 */
export async function connectCluster(
  config: Pick<Config, "redisUrl">,
  logger?: Logger,
  options: { keyPrefix?: string } = {},
): Promise<Cluster> {
  if (!config.redisUrl) return localCluster();
  const redis = await connectRedis(config.redisUrl, { logger });
  return {
    redis,
    keyPrefix: options.keyPrefix,
    readiness() {
      if (redis.status === "ready") return { status: "ok" };
      return {
        status: "degraded",
        detail: "Redis unreachable: rate limits and throttles are per process until it returns",
      };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
