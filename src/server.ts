import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import { openDatabase, redactUrl } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { createLogger } from "./logger.js";

/** A running server and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

/** Opens and migrates the database, builds the app and listens on HOST:PORT. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const database = openDatabase(config.databaseUrl);
  try {
    await database.ping();
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    throw new Error(
      `Cannot open the database at ${redactUrl(config.databaseUrl)}: ${(error as Error).message}`,
    );
  }
  const app = await buildApp({ config, database, logger });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  logger.info(
    { url, database: redactUrl(config.databaseUrl), engine: database.engine },
    "Eventgraph is listening",
  );

  let stopping: Promise<void> | undefined;
  return {
    app,
    url,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await database.close();
      })();
      return stopping;
    },
  };
}

/** Stops the server gracefully on SIGTERM/SIGINT; a second signal exits at once. */
export function stopOnSignals(server: RunningServer): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(1);
    received = true;
    server.app.log.info({ signal }, "Shutting down: finishing in-flight requests");
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, "Shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
