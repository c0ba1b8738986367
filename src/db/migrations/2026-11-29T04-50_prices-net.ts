import type { Kysely } from "kysely";

// Prices entered net (issue #40): a project option, and each order line freezes how its price was
// entered, so the order, its invoice and its credit notes show the line as it was sold even after
// the organizer switches the option.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("order_settings")
    .addColumn("prices_net", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("order_lines")
    .addColumn("prices_net", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("order_lines").dropColumn("prices_net").execute();
  await db.schema.alterTable("order_settings").dropColumn("prices_net").execute();
}
