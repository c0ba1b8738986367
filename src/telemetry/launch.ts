import type { Config } from "../config.js";

/**
 * Runs the service, with OpenTelemetry started first when configured. The server is imported only
 * afterwards, because instrumentation patches `node:http`, Fastify and `pg` as they load; without
 * tracing the SDK is never imported, so it costs nothing at start-up.
 */
export async function launch(config: Config): Promise<void> {
  if (config.tracing) {
    const { startTracing } = await import("./tracing.js");
    startTracing(config.tracing);
  }
  const { runService } = await import("../server.js");
  await runService(config);
}
