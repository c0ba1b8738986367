import { type Migration, type MigrationProvider, type MigrationResult, Migrator } from "kysely";
import type { Db } from "./database.js";
import * as initial from "./migrations/2026-11-23T00-00_initial.js";
import * as serverSecrets from "./migrations/2026-11-23T01-00_server-secrets.js";
import * as projectDataVersion from "./migrations/2026-11-23T02-00_project-data-version.js";
import * as searchIndex from "./migrations/2026-11-24T01-00_search-index.js";

// Listed explicitly rather than read from a folder, so the compiled build needs no file scanning
// and the order is visible in review. Names sort by their timestamp prefix.
const migrations: Record<string, Migration> = {
  "2026-11-23T00-00_initial": initial,
  "2026-11-23T01-00_server-secrets": serverSecrets,
  "2026-11-23T02-00_project-data-version": projectDataVersion,
  "2026-11-24T01-00_search-index": searchIndex,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; safe to call from several processes at once (Kysely locks). */
export async function migrateToLatest(db: Db): Promise<MigrationResult[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
  return results ?? [];
}
