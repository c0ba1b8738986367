import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import { connectCluster } from "../../src/cluster/cluster.js";
import type { TestEngine } from "./engines.js";
import { Mailbox } from "./mailbox.js";
import { createTestContext, perSuite, type TestContext } from "./test-services.js";

export interface TestServer extends TestContext {
  app: FastifyInstance;
  /** Base URL of the listening server, e.g. http://127.0.0.1:53211 */
  url: string;
}

/** Starts the real HTTP app on a free loopback port over a fresh database of `engine`. */
export async function startTestServer(
  engine: TestEngine,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const context = await createTestContext(engine, env);
  // With REDIS_URL in `env`, the server shares rate limits and cache invalidations like a real cluster
  // member; a unique key prefix keeps concurrent test runs apart unless the test passes its own.
  const cluster = await connectCluster(context.config, context.services.logger, {
    keyPrefix: env.REDIS_KEY_PREFIX ?? `test:${randomUUID()}:`,
  });
  const app = await buildApp({
    config: context.config,
    database: context.database,
    logger: context.services.logger,
    cluster,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("server has no port");
  const url = `http://127.0.0.1:${address.port}`;
  // Links the server prints (connect links, email links) must point at this test server.
  context.config.baseUrl = url;
  return {
    ...context,
    // The app's own services: writes through them reach its response cache.
    services: app.services,
    app,
    url,
    async close() {
      await app.close();
      await cluster.close();
      await context.close();
    },
  };
}

/** A test server of `engine` for the enclosing `describe` (see perSuite). */
export function serverPerSuite(engine: TestEngine, env: Record<string, string> = {}): TestServer {
  return perSuite(() => startTestServer(engine, env));
}

/**
 * `serverPerSuite` with a real SMTP mailbox the server mails through (SMTP_URL), started before
 * the server and closed after it.
 */
export function serverWithMailboxPerSuite(
  engine: TestEngine,
  env: Record<string, string> = {},
): { server: TestServer; mailbox: Mailbox } {
  const mailbox = new Mailbox();
  const server = perSuite(async () => {
    await mailbox.start();
    const started = await startTestServer(engine, { ...env, SMTP_URL: mailbox.url });
    return {
      ...started,
      async close() {
        await started.close();
        await mailbox.close();
      },
    };
  });
  return { server, mailbox };
}
