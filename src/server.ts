import cluster, { type Worker } from "node:cluster";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { type Cluster, connectCluster } from "./cluster/cluster.js";
import type { Config } from "./config.js";
import { openDatabase, redactUrl, serverDatabaseOptions } from "./db/database.js";
import { migrateServerDatabase, migrateToLatest, openAndMigrate } from "./db/migrate.js";
import { createLogger } from "./logger.js";
import { queryDuration } from "./metrics/instruments.js";
import { metricsEnabled } from "./metrics/metrics.routes.js";

const engineOf = (url: string) => (url.startsWith("sqlite:") ? "sqlite" : "postgres");

/** A running server and how to stop it. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Where log lines go (stdout by default; the demo's `--json` keeps stdout for its result). */
  logDestination?: NodeJS.WritableStream;
  /** Cluster workers skip it: their primary has migrated once before forking them. */
  migrate?: boolean;
}

/** Opens and migrates the database, builds the app and listens on HOST:PORT. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const database = openDatabase(config.databaseUrl, {
    ...serverDatabaseOptions(config),
    checkpointInBackground: true,
    fastPaths: config.fastPaths,
    onQueryDuration: metricsEnabled(config)
      ? (milliseconds) => queryDuration.labels(engineOf(config.databaseUrl)).observe(milliseconds / 1000)
      : undefined,
  });
  try {
    await openAndMigrate(database, config.databaseUrl, async (opened) => {
      if (options.migrate !== false) await migrateServerDatabase(opened, config.databaseUrl);
    });
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  let cluster: Cluster;
  try {
    // With REDIS_URL, rate limits and throttles are shared with every process.
    cluster = await connectCluster(config, logger);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  const app = await buildApp({ config, database, logger, cluster });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    await cluster.close().catch(() => {});
    await database.close().catch(() => {});
    throw new Error(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
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
        await cluster.close();
        await database.close();
      })();
      return stopping;
    },
  };
}

/**
 * Stops the server gracefully on SIGTERM/SIGINT; a second signal exits at once. A cluster worker
 * also stops when its primary asks (a message) or goes away, and exits so the primary can count it.
 */
export function stopOnSignals(server: RunningServer): void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ reason }, "Shutting down: finishing in-flight requests");
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, "Shutdown failed");
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stop(signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  if (cluster.isWorker) {
    // Ctrl+C reaches the workers and the primary alike; the primary's message then must not count
    // as the "second signal" that skips draining.
    process.on("message", (message) => message === shutdownMessage && stop("primary"));
    process.on("disconnect", () => stop("primary gone"));
  }
}

const shutdownMessage = "eventgraph:shutdown";

/**
 * Runs the service as `npm start` and `eventgraph serve` do: one process, or with WEB_CONCURRENCY > 1
 * a primary that migrates once and forks that many workers sharing the port.
 */
export async function runService(config: Config): Promise<void> {
  if (cluster.isWorker) {
    stopOnSignals(await startServer(config, { migrate: false }));
  } else if (config.webConcurrency > 1) {
    await runPrimary(config);
  } else {
    stopOnSignals(await startServer(config));
  }
}

// Workers that crash this often are not going to recover by restarting: the primary gives up.
const crashWindowMs = 60_000;
const maxCrashesInWindow = 5;
// Draining longer than this means a request is stuck; the rest are not worth waiting for.
const drainTimeoutMs = 30_000;

async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const database = openDatabase(config.databaseUrl);
  try {
    await openAndMigrate(database, config.databaseUrl, (opened) => migrateToLatest(opened.db));
  } finally {
    await database.close().catch(() => {});
  }

  const listening = new WeakSet<Worker>();
  const crashes: number[] = [];
  let shuttingDown = false;
  let cleanExit = true;

  const shutDown = (reason: string, exitCode?: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    if (exitCode) cleanExit = false;
    logger.info({ reason, workers: Object.keys(cluster.workers ?? {}).length }, "Draining workers");
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send(shutdownMessage);
    setTimeout(() => {
      logger.error("Workers did not finish in time; stopping them");
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    }, drainTimeoutMs).unref();
    exitWhenEmpty();
  };
  const exitWhenEmpty = () => {
    if (shuttingDown && Object.keys(cluster.workers ?? {}).length === 0) process.exit(cleanExit ? 0 : 1);
  };

  cluster.on("listening", (worker) => listening.add(worker));
  cluster.on("exit", (worker, code, signal) => {
    if (shuttingDown) {
      if (code !== 0) cleanExit = false;
      exitWhenEmpty();
      return;
    }
    if (!listening.has(worker)) {
      // It never served: a port in use or a database gone is not fixed by forking again.
      logger.fatal({ pid: worker.process.pid, code }, "A worker failed to start; stopping");
      shutDown("worker failed to start", 1);
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length > 0 && (crashes[0] ?? now) < now - crashWindowMs) crashes.shift();
    if (crashes.length > maxCrashesInWindow) {
      logger.fatal({ crashes: crashes.length }, "Workers keep crashing; stopping");
      shutDown("crash loop", 1);
      return;
    }
    logger.warn({ pid: worker.process.pid, code, signal }, "Worker died; starting a new one");
    cluster.fork();
  });

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    shutDown(signal);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  logger.info({ workers: config.webConcurrency, pid: process.pid }, "Starting workers");
  for (let i = 0; i < config.webConcurrency; i++) cluster.fork();
}
