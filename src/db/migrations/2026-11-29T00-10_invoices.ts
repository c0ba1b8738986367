import type { Kysely } from "kysely";

// Taxes and invoices (issue #40). Prices are entered gross; each order line freezes the tax rate it
// was sold at and its tax in minor units, so a later rate change never rewrites a sold order. A ticket
// type's rate (basis points: 1900 is 19 %) overrides the project's default in `order_settings`,
// which also keeps the seller's details printed on invoices and the invoice number prefix. The
// buyer's billing details live on the order. `invoices` holds invoices and credit notes as issued,
// numbered from `invoice_counters` in the issuing transaction: a rolled-back issue gives its number
// back, so the numbers have no gaps, and the counter's row lock orders concurrent issues.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("ticket_types").addColumn("tax_rate_bp", "integer").execute();
  await db.schema
    .alterTable("order_lines")
    .addColumn("tax_rate_bp", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("order_lines")
    .addColumn("tax_minor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("order_settings")
    .addColumn("tax_rate_bp", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("order_settings").addColumn("seller_details", "text").execute();
  await db.schema
    .alterTable("order_settings")
    .addColumn("invoice_prefix", "text", (c) => c.notNull().defaultTo("INV-"))
    .execute();
  await db.schema.alterTable("orders").addColumn("buyer_company", "text").execute();
  await db.schema.alterTable("orders").addColumn("buyer_address", "text").execute();
  await db.schema.alterTable("orders").addColumn("buyer_vat_id", "text").execute();

  await db.schema
    .createTable("invoices")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("sequence", "integer", (c) => c.notNull())
    .addColumn("number", "text", (c) => c.notNull())
    .addColumn("total_minor", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    // The document as issued (seller, buyer, lines, totals) as JSON: the PDF is drawn from it.
    .addColumn("document", "text", (c) => c.notNull())
    .addColumn("issued_at", "text", (c) => c.notNull())
    .execute();
  // One number per project, once: the last guard against a double issue.
  await db.schema
    .createIndex("invoices_project_sequence")
    .on("invoices")
    .columns(["project_id", "sequence"])
    .unique()
    .execute();
  await db.schema.createIndex("invoices_order").on("invoices").columns(["order_id", "sequence"]).execute();

  // An order's history on its page: the entries of the order, its tickets and invoices, by object.
  await db.schema
    .createIndex("audit_events_object")
    .on("audit_events")
    .columns(["project_id", "object_id", "occurred_at"])
    .execute();

  // The buyer's order confirmation goes through the ticket-mail outbox: a row naming the order
  // (its attendee is the order's first ticket, so the row still has one and goes with it).
  await db.schema
    .alterTable("ticket_mails")
    .addColumn("order_id", "text", (c) => c.references("orders.id").onDelete("cascade"))
    .execute();

  await db.schema
    .createTable("invoice_counters")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("last_sequence", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("invoice_counters").execute();
  await db.schema.dropIndex("audit_events_object").execute();
  await db.schema.alterTable("ticket_mails").dropColumn("order_id").execute();
  await db.schema.dropTable("invoices").execute();
  for (const column of ["buyer_vat_id", "buyer_address", "buyer_company"]) {
    await db.schema.alterTable("orders").dropColumn(column).execute();
  }
  for (const column of ["invoice_prefix", "seller_details", "tax_rate_bp"]) {
    await db.schema.alterTable("order_settings").dropColumn(column).execute();
  }
  await db.schema.alterTable("order_lines").dropColumn("tax_minor").execute();
  await db.schema.alterTable("order_lines").dropColumn("tax_rate_bp").execute();
  await db.schema.alterTable("ticket_types").dropColumn("tax_rate_bp").execute();
}
