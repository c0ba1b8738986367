import type { Command } from "../command.js";
import { printResult } from "../output.js";

/** `eventgraph backup --out FILE`: a consistent copy of DATABASE_URL taken while the server runs. */
export const backupCommand: Command = {
  name: "backup",
  summary: "Writes a consistent online backup of DATABASE_URL to a new file (SQLite backup API, or pg_dump).",
  details: "The server may keep running and writing. PostgreSQL needs pg_dump on PATH.",
  options: {
    out: {
      type: "string",
      description: "the backup file to create (must not exist)",
      placeholder: "FILE",
      required: true,
    },
  },
  async run(input) {
    const { loadConfig } = await import("../../config.js");
    const { redactUrl } = await import("../../db/database.js");
    const { backupDatabase } = await import("../../backup/backup.js");
    const config = loadConfig();
    const out = input.requiredString("out");
    const started = Date.now();
    const { tool } = await backupDatabase(config.databaseUrl, out);
    const where = redactUrl(config.databaseUrl);
    const result = { database: where, out, tool, milliseconds: Date.now() - started };
    printResult(input.io, input.json, result, `Backed up ${where} to ${out} (${tool})`);
    return 0;
  },
};

/** `eventgraph restore --from FILE [--force]`: replaces DATABASE_URL with a backup. */
export const restoreCommand: Command = {
  name: "restore",
  summary: "Replaces DATABASE_URL with a backup file; refuses a database holding data without --force.",
  details: "Stop every server using the database first; start them afterwards (they migrate forward).",
  options: {
    from: { type: "string", description: "the backup file to restore", placeholder: "FILE", required: true },
    force: { type: "boolean", description: "replace a database that holds data" },
  },
  async run(input) {
    const { loadConfig } = await import("../../config.js");
    const { redactUrl } = await import("../../db/database.js");
    const { restoreDatabase } = await import("../../backup/backup.js");
    const config = loadConfig();
    const from = input.requiredString("from");
    const { tool } = await restoreDatabase(config.databaseUrl, from, input.flag("force"));
    const where = redactUrl(config.databaseUrl);
    printResult(
      input.io,
      input.json,
      { database: where, from, tool },
      `Restored ${from} into ${where} (${tool})`,
    );
    return 0;
  },
};
