import { Redis } from "ioredis";

/**
 * Opens a Redis connection and waits until it answers, so a wrong REDIS_URL fails at start-up
 * rather than on the first request. Commands give up after `commandTimeoutMs` while Redis is away
 * (instead of queueing for ever), so callers can fall back to their in-process behaviour.
 */
export async function connectRedis(url: string, options: { commandTimeoutMs?: number } = {}): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 1000,
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}
