import { type Command, integerFlag } from "../command.js";
import { printResult } from "../output.js";

// Without DATABASE_URL the demo gets its own file, so it never fills the main database by accident.
const demoDatabase = { DATABASE_URL: "sqlite:./data/demo.sqlite" };

/** `eventgraph demo`: seeds the demo conference and serves it. */
export const demoCommand: Command = {
  name: "demo",
  summary: "Seeds a demo conference (into DATABASE_URL, else ./data/demo.sqlite) and serves it on PORT.",
  details:
    "Creates a verified organizer and a published project with tracks, rooms, sessions, speakers,\n" +
    "ticket types, attendees and check-ins, prints the login, then serves until Ctrl+C.\n" +
    "--scale 100 makes ≈6,000 sessions and 200,000 attendees. Seeding times are written to stderr.",
  options: {
    scale: {
      type: "string",
      placeholder: "N",
      description: "multiply the conference's size (1–1000, default 1)",
    },
    seed: {
      type: "string",
      placeholder: "S",
      description: "the random seed: the same seed, the same conference (default 1)",
    },
    port: { type: "string", placeholder: "P", description: "port to serve on (default PORT, else 4000)" },
    "no-serve": { type: "boolean", description: "seed, print and exit (for scripts and benchmarks)" },
  },
  async run(input) {
    const scale = integerFlag(input, "scale", 1, 1000) ?? 1;
    const seed = integerFlag(input, "seed", 0, 2 ** 32 - 1) ?? 1;
    const port = integerFlag(input, "port", 0, 65535);
    const options = { defaults: demoDatabase, overrides: port === undefined ? {} : { PORT: String(port) } };
    const { loadConfig } = await import("../../config.js");
    const { withServices } = await import("../context.js");
    const { startServer, stopOnSignals } = await import("../../server.js");
    const config = loadConfig(input.io.env, options);

    const started = performance.now();
    const result = await withServices(input.io, (services) => services.demo.seed({ scale, seed }), options);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const counts = Object.entries(result.counts)
      .map(([table, n]) => `${n.toLocaleString("en")} ${table}`)
      .join(", ");
    const timings = Object.entries(result.timings)
      .map(([step, ms]) => `${step} ${ms} ms`)
      .join(", ");
    input.io.stderr.write(`Seeded in ${seconds} s: ${counts}\n  (${timings})\n`);

    // --json keeps stdout for the one result object; the server's log lines go to stderr then.
    const server = input.flag("no-serve")
      ? undefined
      : await startServer(config, input.json ? { logDestination: input.io.stderr } : {});
    // Port 0 means "any free port": only the listening server knows which one it got.
    const url = server && config.port === 0 ? server.url : config.baseUrl;
    const projectId = result.project.id;
    printResult(
      input.io,
      input.json,
      { url, email: result.organizer.email, password: result.password, projectId, token: result.token },
      [
        `Demo conference "${result.project.name}" (project ${projectId})`,
        `  Dashboard: ${url}/b/${projectId}`,
        `  Log in as: ${result.organizer.email}`,
        `  Password:  ${result.password}`,
        `  API:       ${url}/api/graphql`,
        `  Token:     ${result.token}   (demo app, every *:read permission; shown once)`,
        server ? "Serving; press Ctrl+C to stop." : "",
      ].join("\n"),
    );
    if (server) stopOnSignals(server);
    return 0;
  },
};
