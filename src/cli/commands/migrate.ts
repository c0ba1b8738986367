import type { Command } from "../command.js";
import { printResult } from "../output.js";

/** `eventgraph migrate`: applies pending migrations to DATABASE_URL and says which. */
export const migrateCommand: Command = {
  name: "migrate",
  summary: "Applies every pending database migration to DATABASE_URL (the server also does this at start).",
  options: {
    "dry-run": { type: "boolean", description: "list the migrations that would run, change nothing" },
  },
  async run(input) {
    const { loadConfig } = await import("../../config.js");
    const { openDatabase, redactUrl } = await import("../../db/database.js");
    const { migrateToLatest, pendingMigrations } = await import("../../db/migrate.js");
    const config = loadConfig(input.io.env);
    const database = openDatabase(config.databaseUrl);
    const where = redactUrl(config.databaseUrl);
    if (input.flag("dry-run")) {
      let pending: string[];
      try {
        pending = await pendingMigrations(database.db).catch((error: Error) => {
          throw new Error(`Cannot read the migrations of ${where}: ${error.message}`);
        });
      } finally {
        await database.close();
      }
      const text =
        pending.length === 0
          ? `${where} is up to date; nothing would run`
          : `Would apply to ${where}:\n${pending.map((name) => `  ${name}`).join("\n")}`;
      printResult(input.io, input.json, { database: where, pending }, text);
      return 0;
    }
    let applied: string[];
    try {
      const results = await migrateToLatest(database.db).catch((error: Error) => {
        throw new Error(`Cannot migrate the database at ${where}: ${error.message}`);
      });
      applied = results.filter((r) => r.status === "Success").map((r) => r.migrationName);
    } finally {
      await database.close();
    }
    printResult(
      input.io,
      input.json,
      { database: where, applied },
      applied.length === 0
        ? `${where} is up to date`
        : `Applied to ${where}:\n${applied.map((name) => `  ${name}`).join("\n")}`,
    );
    return 0;
  },
};
