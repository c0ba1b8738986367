import type { Kysely } from "kysely";

// A ticket paid by invoice needs to know whom to invoice: the event page's form asks for the
// billing name and address, kept with the page registration (nullable: other tickets have none).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("public_registrations").addColumn("billing_details", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("public_registrations").dropColumn("billing_details").execute();
}
