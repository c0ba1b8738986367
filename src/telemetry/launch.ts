import cluster from "node:cluster";
import type { Config } from "../config.js";
import { setV8Flags } from "../v8-flags.js";

/**
 * Runs the service, with OpenTelemetry started first when configured. The server is imported only
 * afterwards, because instrumentation patches `node:http`, Fastify and `pg` as they load; without
 * tracing the SDK is never imported, so it costs nothing at start-up. V8's flags come first of all:
 * they govern how the code loaded next allocates.
 */
export async function launch(config: Config): Promise<void> {
  if (cluster.isWorker || config.webConcurrency <= 1) setV8Flags();
  if (config.tracing) {
    const { startTracing } = await import("./tracing.js");
    startTracing(config.tracing);
  }
  const { runService } = await import("../server.js");
  await runService(config);
}
