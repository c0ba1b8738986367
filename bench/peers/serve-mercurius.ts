import Fastify from "fastify";
import mercurius, { type IResolvers } from "mercurius";

/**
 * Serves `schema` with Mercurius at `/api/graphql` on a free port of the loopback, each query
 * compiled with graphql-jit from its first use, as the Mercurius peers of the bench run; prints
 * {"port": n} once listening (what bench/processes.ts waits for) and closes on SIGTERM or SIGINT.
 */
export async function serveMercurius(
  schema: string,
  resolvers: object,
  context?: () => Record<string, unknown>,
): Promise<void> {
  const app = Fastify({ logger: false });
  await app.register(mercurius, {
    schema,
    resolvers: resolvers as IResolvers,
    path: "/api/graphql",
    jit: 1,
    ...(context ? { context } : {}),
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => void app.close().then(() => process.exit(0)));
  }
}
