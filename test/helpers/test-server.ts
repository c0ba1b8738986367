import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import type { TestEngine } from "./engines.js";
import { createTestContext, type TestContext } from "./test-services.js";

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
  const app = await buildApp({
    config: context.config,
    database: context.database,
    logger: context.services.logger,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("server has no port");
  const url = `http://127.0.0.1:${address.port}`;
  // Links the server prints (connect links, email links) must point at this test server.
  context.config.baseUrl = url;
  return {
    ...context,
    app,
    url,
    async close() {
      await app.close();
      await context.close();
    },
  };
}
