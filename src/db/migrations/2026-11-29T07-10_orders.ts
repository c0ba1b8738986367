import type { Kysely } from "kysely";

// Cancellations refund through the refund path (issue #40): a refund row says what it cancels once
// the provider confirms it, so a refund whose answer comes late (or after a restart) still cancels
// the one ticket (attendee_id) or the whole order (cancels_order) it was made for, and a second
// cancel of the same ticket finds the first.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("order_refunds").addColumn("attendee_id", "text").execute();
  await db.schema
    .alterTable("order_refunds")
    .addColumn("cancels_order", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("order_refunds").dropColumn("cancels_order").execute();
  await db.schema.alterTable("order_refunds").dropColumn("attendee_id").execute();
}
