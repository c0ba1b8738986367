import type { Kysely } from "kysely";

// The install flow and account management. An app gains where to send the organizer after consent
// (redirect_url) and who it is (website and privacy-policy links on the consent page). A login
// session remembers the browser and address it was used from, so its owner can recognise and end it.
// An email token can carry the new address of a pending email change: the address takes effect only
// when a link sent to it is opened.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("apps").addColumn("redirect_url", "text").execute();
  await db.schema.alterTable("apps").addColumn("website_url", "text").execute();
  await db.schema.alterTable("apps").addColumn("privacy_url", "text").execute();
  await db.schema.alterTable("auth_sessions").addColumn("user_agent", "text").execute();
  await db.schema.alterTable("auth_sessions").addColumn("ip", "text").execute();
  await db.schema.alterTable("email_tokens").addColumn("new_email", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("email_tokens").dropColumn("new_email").execute();
  await db.schema.alterTable("auth_sessions").dropColumn("ip").execute();
  await db.schema.alterTable("auth_sessions").dropColumn("user_agent").execute();
  await db.schema.alterTable("apps").dropColumn("privacy_url").execute();
  await db.schema.alterTable("apps").dropColumn("website_url").execute();
  await db.schema.alterTable("apps").dropColumn("redirect_url").execute();
}
