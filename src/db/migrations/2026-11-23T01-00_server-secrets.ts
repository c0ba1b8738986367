import type { Kysely } from "kysely";

// Keys the service generates for itself (the dashboard's cookie-signing key). Kept in the database
// so every process and every restart signs and checks with the same key, with nothing to configure.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("server_secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("server_secrets").execute();
}
