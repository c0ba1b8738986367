import { Writable } from "node:stream";
import { type Config, loadConfig } from "../../src/config.js";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createLogger } from "../../src/logger.js";
import { createServices, type Services } from "../../src/services.js";
import type { TestEngine } from "./engines.js";

/** Log lines captured from the code under test, so tests can assert what was (not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join("\n");
  }
}

export interface TestContext {
  config: Config;
  database: DatabaseHandle;
  services: Services;
  logs: LogCapture;
  /** SQL statements executed since the last `resetStatements()`. */
  statements: string[];
  /** The same statements with their parameters, for tests that EXPLAIN them. */
  queries: { sql: string; parameters: readonly unknown[] }[];
  close(): Promise<void>;
}

/**
 * For a test of a fast path's own behaviour: "fast path <name> is off" when EVENTGRAPH_FAST_PATHS
 * turns it off (a skip scripts/test.mjs accepts in CI), else false.
 */
export function fastPathOff(name: keyof Config["fastPaths"]): string | false {
  const { fastPaths } = loadConfig({ EVENTGRAPH_FAST_PATHS: process.env.EVENTGRAPH_FAST_PATHS ?? "" });
  return fastPaths[name] ? false : `fast path ${name} is off`;
}

/** Opens and migrates a database for `engine` and builds the real services over it. */
export async function createTestContext(
  engine: TestEngine,
  env: Record<string, string> = {},
): Promise<TestContext> {
  // EVENTGRAPH_FAST_PATHS passes through: `EVENTGRAPH_FAST_PATHS=off node scripts/test.mjs test/api`
  // runs the tests on the plain path (src/config.ts).
  const fastPaths = process.env.EVENTGRAPH_FAST_PATHS;
  const config = loadConfig({
    DATABASE_URL: engine.newDatabaseUrl(),
    LOG_LEVEL: "info",
    ...(fastPaths ? { EVENTGRAPH_FAST_PATHS: fastPaths } : {}),
    ...env,
  });
  const statements: string[] = [];
  const queries: TestContext["queries"] = [];
  const database = openDatabase(config.databaseUrl, {
    poolSize: 4,
    fastPaths: config.fastPaths,
    onQuery: (sql, parameters) => {
      statements.push(sql);
      queries.push({ sql, parameters });
    },
  });
  await migrateToLatest(database.db);
  statements.length = 0;
  queries.length = 0;
  const logs = new LogCapture();
  const logger = createLogger(config.logLevel, logs);
  return {
    config,
    database,
    services: createServices(database, config, logger),
    logs,
    statements,
    queries,
    close: () => database.close(),
  };
}
