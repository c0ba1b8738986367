import type { Kysely } from "kysely";

// Attendees cancelling their own paid order (issue #40): the organizer allows it until a moment they
// choose (an ISO instant); null, the default, does not allow it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("order_settings").addColumn("self_cancel_until", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("order_settings").dropColumn("self_cancel_until").execute();
}
