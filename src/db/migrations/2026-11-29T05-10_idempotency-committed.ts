import type { Kysely } from "kysely";

/**
 * When a keyed mutation's write committed, set inside that write's transaction: a process that dies
 * between the COMMIT and storing the answer leaves a key that says the mutation ran, so the retry is
 * refused (IDEMPOTENCY_ANSWER_LOST) rather than run a second time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("idempotency_keys").addColumn("committed_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("idempotency_keys").dropColumn("committed_at").execute();
}
