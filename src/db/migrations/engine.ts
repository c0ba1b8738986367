import { type Kysely, sql } from "kysely";

/** Whether a migration runs on PostgreSQL (`version()` exists there, not in SQLite). */
export async function isPostgres(db: Kysely<unknown>): Promise<boolean> {
  try {
    await sql`select version()`.execute(db);
    return true;
  } catch {
    return false;
  }
}
