import { type Config, type ConfigOptions, loadConfig } from "../config.js";
import { openDatabase } from "../db/database.js";
import { migrateToLatest, openAndMigrate } from "../db/migrate.js";
import { createLogger } from "../logger.js";
import { createServices, type Services } from "../services.js";
import type { CliIo } from "./command.js";

/**
 * Runs `work` with the domain services over DATABASE_URL, migrated first, and closes the database
 * afterwards. Logs go to stderr so that stdout carries only the command's result.
 */
export async function withServices<T>(
  io: CliIo,
  work: (services: Services, config: Config) => Promise<T>,
  options: ConfigOptions = {},
): Promise<T> {
  const config = loadConfig(io.env, options);
  // Commands load data in bulk (`demo` seeds up to millions of rows): a large page cache pays.
  // No statement timeout: a command may rightly run long. The operator's durability choice holds.
  const database = openDatabase(config.databaseUrl, {
    sqlitePageCacheMiB: 64,
    sqliteSynchronous: config.sqliteSynchronous,
  });
  try {
    await openAndMigrate(database, config.databaseUrl, (opened) => migrateToLatest(opened.db));
    // Warnings and errors only: a one-shot command's info lines would be noise around its result.
    const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, io.stderr);
    return await work(createServices(database, config, logger), config);
  } finally {
    await database.close();
  }
}
