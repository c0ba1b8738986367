import { type Kysely, sql } from "kysely";

// Migrations import nothing from the app: they must keep working after the app's types move on.
// Only portable types are used (text, integer) so one file serves SQLite and PostgreSQL.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_normalized", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("email_verified_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("auth_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_sessions_user").on("auth_sessions").column("user_id").execute();

  await db.schema
    .createTable("email_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("email_tokens_user").on("email_tokens").column("user_id").execute();

  await db.schema
    .createTable("projects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("timezone", "text", (c) => c.notNull())
    .addColumn("starts_at", "text")
    .addColumn("ends_at", "text")
    .addColumn("venue_name", "text")
    .addColumn("venue_address", "text")
    .addColumn("venue_city", "text")
    .addColumn("venue_country", "text")
    .addColumn("website", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("project_members")
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("project_members_pk", ["project_id", "user_id"])
    .execute();
  await db.schema.createIndex("project_members_user").on("project_members").column("user_id").execute();

  await db.schema
    .createTable("tracks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("color", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("tracks_project").on("tracks").columns(["project_id", "name", "id"]).execute();

  await db.schema
    .createTable("rooms")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("capacity", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rooms_project").on("rooms").columns(["project_id", "name", "id"]).execute();

  await db.schema
    .createTable("speakers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("bio", "text")
    .addColumn("company", "text")
    .addColumn("job_title", "text")
    .addColumn("photo_url", "text")
    .addColumn("links", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("speakers_project")
    .on("speakers")
    .columns(["project_id", "name", "id"])
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("starts_at", "text", (c) => c.notNull())
    .addColumn("ends_at", "text", (c) => c.notNull())
    .addColumn("room_id", "text", (c) => c.references("rooms.id").onDelete("set null"))
    .addColumn("track_id", "text", (c) => c.references("tracks.id").onDelete("set null"))
    .addColumn("capacity", "integer")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("sessions_project_start")
    .on("sessions")
    .columns(["project_id", "starts_at", "id"])
    .execute();
  await db.schema
    .createIndex("sessions_project_status_start")
    .on("sessions")
    .columns(["project_id", "status", "starts_at", "id"])
    .execute();
  await db.schema.createIndex("sessions_room").on("sessions").column("room_id").execute();
  await db.schema.createIndex("sessions_track").on("sessions").column("track_id").execute();

  await db.schema
    .createTable("session_speakers")
    .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
    .addColumn("speaker_id", "text", (c) => c.notNull().references("speakers.id").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("session_speakers_pk", ["session_id", "speaker_id"])
    .execute();
  await db.schema
    .createIndex("session_speakers_speaker")
    .on("session_speakers")
    .column("speaker_id")
    .execute();

  await db.schema
    .createTable("ticket_types")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("price_minor", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("quantity", "integer", (c) => c.notNull())
    .addColumn("sales_start_at", "text")
    .addColumn("sales_end_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("ticket_types_project")
    .on("ticket_types")
    .columns(["project_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("attendees")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("ticket_type_id", "text", (c) => c.notNull().references("ticket_types.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_normalized", "text", (c) => c.notNull())
    .addColumn("company", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("registered_at", "text", (c) => c.notNull())
    .addColumn("cancelled_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("attendees_project_registered")
    .on("attendees")
    .columns(["project_id", "registered_at", "id"])
    .execute();
  await db.schema
    .createIndex("attendees_ticket_status")
    .on("attendees")
    .columns(["ticket_type_id", "status"])
    .execute();
  // One active registration per email and project; a cancelled attendee may register again.
  await sql`create unique index attendees_project_email_active on attendees (project_id, email_normalized) where status = 'REGISTERED'`.execute(
    db,
  );

  await db.schema
    .createTable("check_ins")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("attendee_id", "text", (c) => c.notNull().references("attendees.id").onDelete("cascade"))
    .addColumn("checked_in_at", "text", (c) => c.notNull())
    .addColumn("by_user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("by_app_id", "text")
    .addColumn("undone_at", "text")
    .execute();
  await db.schema
    .createIndex("check_ins_attendee")
    .on("check_ins")
    .columns(["attendee_id", "checked_in_at"])
    .execute();
  // Check-in is idempotent: the database itself refuses a second active check-in.
  await sql`create unique index check_ins_attendee_active on check_ins (attendee_id) where undone_at is null`.execute(
    db,
  );

  await db.schema
    .createTable("apps")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("permissions", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("token_last4", "text", (c) => c.notNull())
    .addColumn("token_created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("apps_project").on("apps").columns(["project_id", "created_at"]).execute();

  await db.schema
    .createTable("app_links")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("authorized_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("authorized_at", "text", (c) => c.notNull())
    .addColumn("permissions", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .addColumn("revoked_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .execute();
  await sql`create unique index app_links_active on app_links (app_id, project_id) where revoked_at is null`.execute(
    db,
  );
  await db.schema
    .createIndex("app_links_project")
    .on("app_links")
    .columns(["project_id", "revoked_at"])
    .execute();

  await db.schema
    .createTable("app_usage")
    .addColumn("app_id", "text", (c) => c.notNull().references("apps.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("requests", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("app_usage_pk", ["app_id", "day"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "app_usage",
    "app_links",
    "apps",
    "check_ins",
    "attendees",
    "ticket_types",
    "session_speakers",
    "sessions",
    "speakers",
    "rooms",
    "tracks",
    "project_members",
    "projects",
    "email_tokens",
    "auth_sessions",
    "users",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
