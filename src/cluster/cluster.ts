import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { connectRedis } from "./redis.js";
import { connectRedisSignals, createLocalSignals, type Signals } from "./signals.js";

/** What a process shares with the others: a Redis connection (when configured) and the signal bus. */
export interface Cluster {
  redis: Redis | undefined;
  signals: Signals;
  /** Prefix of every Redis key and channel this deployment uses. */
  keyPrefix: string | undefined;
  /** What /readyz reports about Redis; undefined when REDIS_URL is not set. */
  readiness(): { status: "ok" | "degraded"; detail?: string } | undefined;
  /** Closes the signal subscriber and the Redis connection. */
  close(): Promise<void>;
}

/** A single process on its own: no Redis, signals stay in process. */
export function localCluster(logger?: Logger): Cluster {
  const signals = createLocalSignals(logger);
  return {
    redis: undefined,
    signals,
    keyPrefix: undefined,
    readiness: () => undefined,
    close: () => signals.close(),
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
  if (!config.redisUrl) return localCluster(logger);
  const redis = await connectRedis(config.redisUrl, { logger });
  try {
    const signals = await connectRedisSignals({ redis, logger, keyPrefix: options.keyPrefix });
    return {
      redis,
      signals,
      keyPrefix: options.keyPrefix,
      readiness() {
        if (redis.status === "ready" && signals.status === "up") return { status: "ok" };
        return {
          status: "degraded",
          detail:
            "Redis unreachable: rate limits are per process and the response cache is off until it returns",
        };
      },
      async close() {
        await signals.close();
        await redis.quit();
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
