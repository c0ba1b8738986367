import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { after, before } from "node:test";
import { type Config, loadConfig } from "../../src/config.js";
import { type DatabaseHandle, openDatabase, serverDatabaseOptions } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createLogger } from "../../src/logger.js";
import { createServices, type Services } from "../../src/services.js";
import type { TestEngine } from "./engines.js";
import { temporaryFolder } from "./temporary.js";
import { ownDatabase } from "./throwaway-database.js";

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

let sqliteTemplate: Promise<string> | undefined;

/** scrypt's N in the tests' config: cheap, still scrypt (see createTestContext). */
const testPasswordCost = 1024;

/**
 * A migrated, empty SQLite file to copy: scripts/test.mjs makes one per run (SQLITE_TEMPLATE_TEST);
 * a file run on its own makes its own, once. Migrating takes a few hundred milliseconds, copying a
 * few tens, and the suite opens hundreds of fresh SQLite databases.
 */
function migratedSqliteTemplate(): Promise<string> {
  const shared = process.env.SQLITE_TEMPLATE_TEST;
  if (shared && existsSync(shared)) return Promise.resolve(shared);
  sqliteTemplate ??= (async () => {
    const path = join(temporaryFolder("eventgraph-template-"), "template.sqlite");
    const database = openDatabase(`sqlite:${path}`);
    await migrateToLatest(database.db);
    await database.close();
    return path;
  })();
  return sqliteTemplate;
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
  // Tests make over a thousand users a run, each hashed at scrypt's production cost (40 ms of CPU): a
  // test's server hashes at N=1024 instead (2 ms). Hashing and checking run the same code, and a
  // hash keeps its N; src/config.test.ts holds the production cost, which no variable lowers.
  config.passwordCost = testPasswordCost;
  // A new SQLite file starts as a copy of the migrated template; the migration below then finds
  // nothing to do (and still runs, so a stale template could never hide a missing migration).
  const sqlitePath = config.databaseUrl.startsWith("sqlite:") ? config.databaseUrl.slice(7) : undefined;
  if (sqlitePath && sqlitePath !== ":memory:" && !existsSync(sqlitePath)) {
    const template = await migratedSqliteTemplate();
    mkdirSync(dirname(sqlitePath), { recursive: true });
    copyFileSync(template, sqlitePath);
  }
  const statements: string[] = [];
  const queries: TestContext["queries"] = [];
  // As a server opens it (timeouts, synchronous), but with a smaller pool.
  const database = openDatabase(config.databaseUrl, {
    ...serverDatabaseOptions(config),
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

/**
 * What `open` opens, for the enclosing `describe`: opened before its first test, closed after its
 * last. The object is filled in by that `before` hook, so read its fields inside tests only.
 */
export function perSuite<T extends { close(): Promise<void> }>(open: () => Promise<T>): T {
  const opened = {} as T;
  let isOpen = false;
  before(async () => {
    Object.assign(opened, await open());
    isOpen = true;
  });
  // A `before` that failed has its own error; closing nothing must not add a second one.
  after(async () => {
    if (isOpen) await opened.close();
  });
  return opened;
}

/** A TestContext of `engine` for the enclosing `describe` (see perSuite). */
export function testContextPerSuite(engine: TestEngine, env: Record<string, string> = {}): TestContext {
  return perSuite(() => createTestContext(engine, env));
}

/**
 * A TestContext on a database of its own (see ownDatabase) for the enclosing `describe`, dropped
 * after its last test: for a file whose claims (due mails, deliveries) other files' servers would
 * otherwise take, or whose claims would take theirs.
 */
export function ownTestContextPerSuite(engine: TestEngine, prefix: string): TestContext {
  return perSuite(async () => {
    const own = await ownDatabase(engine, prefix);
    const context = await createTestContext(own.engine).catch(async (error: unknown) => {
      await own.drop();
      throw error;
    });
    return {
      ...context,
      close: async () => {
        await context.close();
        await own.drop();
      },
    };
  });
}
