import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

// The waiting list of sold-out ticket types (issue #43). An entry waits in line (created_at, id);
// when a seat frees, the worker offers it: the entry turns OFFERED with `offer_expires_at`, and a
// live offer counts as a sold seat until it is taken (ACCEPTED) or lapses (EXPIRED). The offer's
// email goes through the ticket-mail outbox: its rows name the entry (`waiting_entry_id`) and no
// attendee, so `ticket_mails.attendee_id` becomes nullable (SQLite cannot drop NOT NULL in place:
// the table is rebuilt with the same columns and indexes).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("waiting_list_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("ticket_type_id", "text", (c) => c.notNull().references("ticket_types.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_normalized", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("offer_token_hash", "text")
    .addColumn("offered_at", "text")
    .addColumn("offer_expires_at", "text")
    .addColumn("attendee_id", "text", (c) => c.references("attendees.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // The line of one ticket type, in order; the worker's and the list's read.
  await db.schema
    .createIndex("waiting_list_line")
    .on("waiting_list_entries")
    .columns(["ticket_type_id", "state", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("waiting_list_project")
    .on("waiting_list_entries")
    .columns(["project_id", "state"])
    .execute();
  // One place in line per person and ticket type: joining twice finds the first entry.
  await db.schema
    .createIndex("waiting_list_one_per_email")
    .on("waiting_list_entries")
    .columns(["ticket_type_id", "email_normalized"])
    .unique()
    .where(sql.ref("state"), "in", sql`('WAITING', 'OFFERED')`)
    .execute();
  await db.schema
    .createIndex("waiting_list_offer_token")
    .on("waiting_list_entries")
    .column("offer_token_hash")
    .unique()
    .execute();
  await db.schema
    .createTable("waiting_list_settings")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("offer_hours", "integer", (c) => c.notNull())
    .execute();

  if (await isPostgres(db)) {
    await sql`alter table ticket_mails alter column attendee_id drop not null`.execute(db);
    await db.schema
      .alterTable("ticket_mails")
      .addColumn("waiting_entry_id", "text", (c) =>
        c.references("waiting_list_entries.id").onDelete("cascade"),
      )
      .execute();
  } else {
    await sql`create table ticket_mails_new (
      id text primary key,
      project_id text not null references projects(id) on delete cascade,
      attendee_id text references attendees(id) on delete cascade,
      status text not null,
      attempts integer not null default 0,
      next_attempt_at text not null,
      lease_until text,
      lease_token text,
      last_error text,
      created_at text not null,
      sent_at text,
      order_id text references orders(id) on delete cascade,
      message_id text references messages(id) on delete cascade,
      waiting_entry_id text references waiting_list_entries(id) on delete cascade
    )`.execute(db);
    await sql`insert into ticket_mails_new (id, project_id, attendee_id, status, attempts, next_attempt_at,
      lease_until, lease_token, last_error, created_at, sent_at, order_id, message_id)
      select id, project_id, attendee_id, status, attempts, next_attempt_at, lease_until, lease_token,
      last_error, created_at, sent_at, order_id, message_id from ticket_mails`.execute(db);
    await sql`drop table ticket_mails`.execute(db);
    await sql`alter table ticket_mails_new rename to ticket_mails`.execute(db);
    await db.schema
      .createIndex("ticket_mails_due")
      .on("ticket_mails")
      .columns(["status", "next_attempt_at"])
      .execute();
    await db.schema
      .createIndex("ticket_mails_attendee")
      .on("ticket_mails")
      .columns(["attendee_id", "created_at"])
      .execute();
    await db.schema
      .createIndex("ticket_mails_project")
      .on("ticket_mails")
      .columns(["project_id", "status"])
      .execute();
    await db.schema
      .createIndex("ticket_mails_message")
      .on("ticket_mails")
      .columns(["message_id", "status"])
      .execute();
  }
  await db.schema
    .createIndex("ticket_mails_waiting_entry")
    .on("ticket_mails")
    .columns(["waiting_entry_id", "status"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("ticket_mails_waiting_entry").execute();
  await sql`delete from ticket_mails where attendee_id is null`.execute(db);
  await db.schema.alterTable("ticket_mails").dropColumn("waiting_entry_id").execute();
  if (await isPostgres(db)) {
    await sql`alter table ticket_mails alter column attendee_id set not null`.execute(db);
  }
  await db.schema.dropTable("waiting_list_settings").execute();
  await db.schema.dropTable("waiting_list_entries").execute();
}
