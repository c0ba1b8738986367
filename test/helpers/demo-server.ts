import { systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import type { TestEngine } from "./engines.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** How large a demo conference to seed, and the app that reads it. */
export interface DemoServerOptions {
  /** The demo's scale and random seed (`demo.seed`). */
  scale: number;
  seed: number;
  app: { name: string; permissions: readonly Permission[] };
  /** More server settings (e.g. REQUEST_TIMEOUT_MS). */
  env?: Record<string, string>;
}

/**
 * A test server over the seeded demo conference, with an app of its project and that app's token.
 * The API's hourly points are set out of reach: these tests measure what requests do, not how
 * many a caller may send.
 */
export async function startDemoServer(
  engine: TestEngine,
  { scale, seed, app, env = {} }: DemoServerOptions,
): Promise<{ server: TestServer; projectId: string; token: string }> {
  const server = await startTestServer(engine, {
    RATE_LIMIT_APP_POINTS_PER_HOUR: "100000000",
    RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "100000000",
    ...env,
  });
  const demo = await server.services.demo.seed({ scale, seed });
  const projectId = demo.project.id;
  const { token } = await server.services.apps.createApp(systemActor, {
    projectId,
    name: app.name,
    permissions: [...app.permissions],
  });
  return { server, projectId, token };
}
