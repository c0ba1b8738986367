import { Redis } from "ioredis";
import type { Logger } from "../logger.js";

/**
 * Opens a Redis connection and waits until it answers, so a wrong REDIS_URL fails at start-up
 * rather than on the first request. Commands give up after `commandTimeoutMs` while Redis is away
 * (instead of queueing for ever), so callers can fall back to their in-process behaviour.
 * Connection errors after start-up are logged, once per outage, while ioredis reconnects.
 */
export async function connectRedis(
  url: string,
  options: { commandTimeoutMs?: number; logger?: Logger | undefined } = {},
): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
  });
  let lastError: Error | undefined;
  let reported = false;
  client.on("error", (error: Error) => {
    lastError = error;
    if (!reported) {
      options.logger?.warn(
        { err: error },
        "Redis unreachable; reconnecting. Meanwhile rate limits and throttles are per process",
      );
    }
    reported = true;
  });
  client.on("ready", () => {
    if (reported) options.logger?.info("Redis reachable again: rate limits and throttles are shared again");
    reported = false;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    // The URL may carry a password: name only the host.
    const where = URL.canParse(url) ? new URL(url).host : "REDIS_URL";
    throw new Error(`Redis at ${where} did not answer: ${(lastError ?? (error as Error)).message}`);
  }
  return client;
}
