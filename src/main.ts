import { ConfigError, loadConfig } from "./config.js";
import { launch } from "./telemetry/launch.js";

// `npm start`: read the environment, serve (one process or a cluster), shut down gracefully.
try {
  await launch(loadConfig());
} catch (error) {
  // One clear message, no stack: a bad PORT or DATABASE_URL is an operator's typo, not a crash.
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `Eventgraph failed to start: ${(error as Error).message}`}\n`,
  );
  process.exit(1);
}
