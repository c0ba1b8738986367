import type { Kysely } from "kysely";

// Card payments through Stripe Checkout and refunds (issue #40).
// - `payment_accounts`: a project's Stripe keys, each encrypted at rest (AES-256-GCM under a server
//   key, modules/orders/stripe/key-box.ts), with a hint ("sk_test_…4242") the dashboard shows
//   instead of the key. Its own table, not columns of order_settings: a save of the hold or the
//   bank details must never touch (or echo) a secret.
// - `orders`: the Checkout Session and the PaymentIntent that paid it (the webhook finds the
//   order by the session and the refund names the intent), and how much was refunded so far,
//   refunds in flight included, so two refunds racing cannot together exceed what was paid.
// - `order_refunds`: one row per refund, PENDING while the provider is asked (its id is the
//   provider's idempotency key), then SUCCEEDED or FAILED; `reason` says whether an organizer asked
//   for it or the payment was sent back on its own (late, duplicate, not matching the order).
// - `payment_notifications`: the provider event ids already applied, so a replayed or duplicated
//   notification changes nothing; written in the same transaction as its effect.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("payment_accounts")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("stripe_secret_key", "text", (c) => c.notNull())
    .addColumn("stripe_webhook_secret", "text", (c) => c.notNull())
    .addColumn("stripe_key_hint", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("orders").addColumn("provider_session_id", "text").execute();
  await db.schema.alterTable("orders").addColumn("provider_payment_id", "text").execute();
  await db.schema
    .alterTable("orders")
    .addColumn("refunded_minor", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("orders_project_session")
    .on("orders")
    .columns(["project_id", "provider_session_id"])
    .execute();

  await db.schema
    .createTable("order_refunds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("amount_minor", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("provider_payment_id", "text")
    .addColumn("provider_refund_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("order_refunds_order").on("order_refunds").columns(["order_id"]).execute();

  await db.schema
    .createTable("payment_notifications")
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("payment_notifications_pk", ["project_id", "event_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("payment_notifications").execute();
  await db.schema.dropTable("order_refunds").execute();
  await db.schema.dropIndex("orders_project_session").execute();
  await db.schema.alterTable("orders").dropColumn("refunded_minor").execute();
  await db.schema.alterTable("orders").dropColumn("provider_payment_id").execute();
  await db.schema.alterTable("orders").dropColumn("provider_session_id").execute();
  await db.schema.dropTable("payment_accounts").execute();
}
