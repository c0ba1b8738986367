import type { FastifyInstance } from "fastify";
import type { DatabaseHandle } from "../db/database.js";
import { version } from "../version.js";

/** What /readyz says about the shared Redis link (undefined: REDIS_URL is not set). */
export type RedisReadiness = () => { status: "ok" | "degraded"; detail?: string } | undefined;

/**
 * `/healthz`: the process answers, and says which release it runs (an operator checks a rollout
 * process by process). `/readyz`: and its database answers too (503 otherwise, with the
 * reason). Redis being away does not make a process unready: it falls back to per-process rate
 * limits and a suspended response cache, so /readyz stays 200 and says "degraded".
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  database: DatabaseHandle,
  redisReadiness: RedisReadiness = () => undefined,
): void {
  app.get("/healthz", { logLevel: "warn" }, async () => ({ status: "ok", version }));

  app.get("/readyz", { logLevel: "warn" }, async (_request, reply) => {
    const redis = redisReadiness();
    try {
      await withTimeout(database.ping(), 2000);
      return { status: "ok", database: { status: "ok" }, ...(redis && { redis }) };
    } catch {
      const health = database.health.current;
      return reply.code(503).send({
        status: "unavailable",
        database: {
          status: "unavailable",
          // No driver message here: /readyz is public and the message names internal hosts. The
          // log has it, once per outage (see watchDatabaseHealth).
          detail: "the database does not answer; API requests get 503 SERVICE_UNAVAILABLE",
          ...(health.status === "down" && { since: new Date(health.since).toISOString() }),
        },
        ...(redis && { redis }),
      });
    }
  });
}

// A hung connection attempt must not hold the probe longer than a load balancer waits.
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
