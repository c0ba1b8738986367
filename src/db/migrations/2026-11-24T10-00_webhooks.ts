import type { Kysely } from "kysely";
import { isPostgres } from "./engine.js";

// Webhooks (issue #10). One endpoint per app; one delivery row per (event, app) written by the
// outbox recorder inside the write's transaction; one attempt row per HTTP request. `seq` orders
// deliveries in commit order per project: the recorder runs after the project's data version was
// bumped, so the project row is locked when `seq` is taken and writes of one project take it in
// commit order. Nothing is deleted except by the 30-day retention.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("app_id", "text", (c) => c.primaryKey().references("apps.id").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("fragments", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("previous_secret", "text")
    .addColumn("previous_secret_expires_at", "text")
    .addColumn("failing_since", "text")
    .addColumn("disabled_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  const postgres = await isPostgres(db);
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("seq", postgres ? "bigserial" : "integer", (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("object_typename", "text", (c) => c.notNull())
    .addColumn("object_id", "text", (c) => c.notNull())
    .addColumn("changed", "text")
    .addColumn("payload", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("lease_token", "text")
    .addColumn("locked_until", "text")
    .addColumn("response_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("delivered_at", "text")
    .execute();
  // The claim's scan (due, pending) and the ordering check (earlier deliveries of the same app and project).
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_order")
    .on("webhook_deliveries")
    .columns(["app_id", "project_id", "status", "seq"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_log")
    .on("webhook_deliveries")
    .columns(["app_id", "seq"])
    .execute();
  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("delivery_id", "text", (c) =>
      c.notNull().references("webhook_deliveries.id").onDelete("cascade"),
    )
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("request_headers", "text", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("error", "text")
    .execute();
  await db.schema
    .createIndex("webhook_attempts_delivery")
    .on("webhook_attempts")
    .columns(["delivery_id", "attempt"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_attempts").execute();
  await db.schema.dropTable("webhook_deliveries").execute();
  await db.schema.dropTable("webhook_endpoints").execute();
}
