import type { Kysely } from "kysely";

// Orders (issue #40): one purchase by one buyer, its lines (ticket type, quantity, the unit price
// frozen at order time) and its tickets, which are attendees carrying the order's id. An attendee
// of a pending order holds its seat only until `held_until`: seat counts ignore a lapsed hold at
// once, so no seat depends on when the expiry worker runs. `order_settings` keeps a project's hold
// length and the bank details shown to buyers paying by transfer (no row: the defaults). Only the
// hash of the buyer's link to their order (the confirmation page) is stored.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("orders")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("buyer_name", "text", (c) => c.notNull())
    .addColumn("buyer_email", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("total_minor", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("payment_reference", "text")
    .addColumn("hold_expires_at", "text")
    .addColumn("idempotency_key", "text")
    .addColumn("buyer_token_hash", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("paid_at", "text")
    .addColumn("closed_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // The code people quote (on the bank transfer, to the organizer) is unique within its project.
  await db.schema
    .createIndex("orders_project_code")
    .on("orders")
    .columns(["project_id", "code"])
    .unique()
    .execute();
  // A repeated submit of the same checkout form finds the first order instead of placing a second.
  await db.schema
    .createIndex("orders_project_idempotency")
    .on("orders")
    .columns(["project_id", "idempotency_key"])
    .unique()
    .execute();
  // The list: newest first, by state or not.
  await db.schema
    .createIndex("orders_project_created")
    .on("orders")
    .columns(["project_id", "created_at", "id"])
    .execute();
  // The expiry worker's scan: pending orders by hold expiry.
  await db.schema
    .createIndex("orders_state_hold")
    .on("orders")
    .columns(["state", "hold_expires_at"])
    .execute();

  await db.schema
    .createTable("order_lines")
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("ticket_type_id", "text", (c) => c.notNull().references("ticket_types.id"))
    .addColumn("ticket_type_name", "text", (c) => c.notNull())
    .addColumn("quantity", "integer", (c) => c.notNull())
    .addColumn("unit_price_minor", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("order_lines_pk", ["order_id", "ticket_type_id"])
    .execute();

  await db.schema
    .alterTable("attendees")
    .addColumn("order_id", "text", (c) => c.references("orders.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("attendees").addColumn("held_until", "text").execute();
  await db.schema.createIndex("attendees_order").on("attendees").column("order_id").execute();
  // Seat counts read `held_until` beside the ticket type and status: without it in the index, the
  // count of a ticket type visited every row (220 ms of SQLite for 200,000 attendees, on the event
  // loop, at each registration and event page); with it the count reads the index alone.
  await db.schema.dropIndex("attendees_ticket_status").execute();
  await db.schema
    .createIndex("attendees_ticket_status_hold")
    .on("attendees")
    .columns(["ticket_type_id", "status", "held_until"])
    .execute();

  await db.schema
    .createTable("order_settings")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("hold_minutes", "integer", (c) => c.notNull())
    .addColumn("bank_details", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("order_settings").execute();
  await db.schema.dropIndex("attendees_ticket_status_hold").execute();
  await db.schema
    .createIndex("attendees_ticket_status")
    .on("attendees")
    .columns(["ticket_type_id", "status"])
    .execute();
  await db.schema.dropIndex("attendees_order").execute();
  await db.schema.alterTable("attendees").dropColumn("held_until").execute();
  await db.schema.alterTable("attendees").dropColumn("order_id").execute();
  await db.schema.dropTable("order_lines").execute();
  await db.schema.dropTable("orders").execute();
}
