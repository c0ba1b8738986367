import type { Kysely } from "kysely";

// Discount and access codes (issue #43). A code takes a percentage or a fixed amount off each
// ticket it covers, or only unlocks hidden ticket types (an access code for speakers or sponsors).
// `code_key` is the upper-cased code: lookups are case-insensitive and two codes differing only in
// case cannot both exist. `uses` counts the tickets the code was applied to, moved by one guarded
// UPDATE so parallel orders never exceed `max_uses`. `ticket_type_ids` (a JSON array; null: every
// type) names the types a code covers; an id of a type deleted since simply matches nothing.
// An order keeps the code it was placed with and its discount frozen, like its prices; a line keeps
// the discount per ticket. `hidden` ticket types are offered only to a buyer holding a code for them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("discount_codes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("code_key", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("percent_off", "integer")
    .addColumn("amount_off_minor", "integer")
    .addColumn("max_uses", "integer")
    .addColumn("max_per_order", "integer")
    .addColumn("valid_from", "text")
    .addColumn("valid_until", "text")
    .addColumn("ticket_type_ids", "text")
    .addColumn("batch", "text")
    .addColumn("uses", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("discount_codes_project_key")
    .on("discount_codes")
    .columns(["project_id", "code_key"])
    .unique()
    .execute();
  // The dashboard's list and the CSV export: by creation, of one batch or all.
  await db.schema
    .createIndex("discount_codes_project_created")
    .on("discount_codes")
    .columns(["project_id", "created_at", "id"])
    .execute();

  await db.schema
    .alterTable("orders")
    .addColumn("discount_code_id", "text", (c) => c.references("discount_codes.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("orders").addColumn("discount_code", "text").execute();
  await db.schema
    .alterTable("orders")
    .addColumn("discount_minor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("order_lines")
    .addColumn("unit_discount_minor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("ticket_types")
    .addColumn("hidden", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ticket_types").dropColumn("hidden").execute();
  await db.schema.alterTable("order_lines").dropColumn("unit_discount_minor").execute();
  await db.schema.alterTable("orders").dropColumn("discount_minor").execute();
  await db.schema.alterTable("orders").dropColumn("discount_code").execute();
  await db.schema.alterTable("orders").dropColumn("discount_code_id").execute();
  await db.schema.dropTable("discount_codes").execute();
}
