import type { Db } from "../../db/database.js";
import { nowIso } from "../../shared/time.js";
import { randomSecret } from "./sessions.service.js";

/**
 * A named key generated once and shared through the database, so every process and every restart
 * uses the same one. The first process to ask creates it; a racing second insert is ignored.
 */
export async function loadServerSecret(db: Db, name: string): Promise<string> {
  await db
    .insertInto("server_secrets")
    .values({ name, value: randomSecret(), created_at: nowIso() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db
    .selectFrom("server_secrets")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return row.value;
}
