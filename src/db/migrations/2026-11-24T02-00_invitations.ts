import type { Kysely } from "kysely";

// Membership by consent: a manager invites an email address, the invitee accepts through a link sent
// to it. Only a hash of the link's secret is stored (like API tokens); a row is spent by
// `accepted_at` or ended by `revoked_at`, and stops working at `expires_at` either way.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("project_invitations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_normalized", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("invited_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text")
    .addColumn("accepted_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("project_invitations_project")
    .on("project_invitations")
    .columns(["project_id", "email_normalized"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("project_invitations").execute();
}
