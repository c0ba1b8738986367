import type { FastifyInstance } from "fastify";
import type { DatabaseHandle } from "../db/database.js";

/** `/healthz`: the process answers. `/readyz`: and its database answers too. */
export function registerHealthRoutes(app: FastifyInstance, database: DatabaseHandle): void {
  app.get("/healthz", { logLevel: "warn" }, async () => ({ status: "ok" }));

  app.get("/readyz", { logLevel: "warn" }, async (_request, reply) => {
    try {
      await withTimeout(database.ping(), 2000);
      return { status: "ok", database: "ok" };
    } catch {
      return reply.code(503).send({ status: "unavailable", database: "unreachable" });
    }
  });
}

// A hung connection attempt must not hold the probe longer than a load balancer waits.
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
