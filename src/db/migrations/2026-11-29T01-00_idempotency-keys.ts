import type { Kysely } from "kysely";

/**
 * Idempotency keys of API mutations (the IETF httpapi Idempotency-Key draft): one row per caller's
 * scope and key, holding a fingerprint of the request, the lock of the run under way (a time, so a
 * process that dies mid-request leaves a lock that ends) and then the answer to replay for 24 hours.
 * In the database, not in memory, so every server process sees the same lock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("locked_until", "text")
    .addColumn("status", "integer")
    .addColumn("media", "text")
    .addColumn("body", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["scope", "key"])
    .execute();
  // The pruning job deletes by expiry.
  await db.schema
    .createIndex("idempotency_keys_expiry")
    .on("idempotency_keys")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("idempotency_keys").execute();
}
