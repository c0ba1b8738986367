import type { Command } from "../command.js";

/** `eventgraph serve`: exactly what `npm start` runs. */
export const serveCommand: Command = {
  name: "serve",
  summary: "Serves the dashboard and the API on HOST:PORT (WEB_CONCURRENCY > 1: that many worker processes).",
  details:
    "Migrates DATABASE_URL first. SIGTERM or Ctrl+C stops accepting, finishes in-flight requests, then exits.",
  options: {},
  async run(input) {
    const { loadConfig } = await import("../../config.js");
    const { launch } = await import("../../telemetry/launch.js");
    await launch(loadConfig(input.io.env));
    // The server keeps the process alive; the signal handlers end it with their own exit code.
    return 0;
  },
};
