import { randomInt } from "node:crypto";
import { type Kysely, SqliteAdapter, sql } from "kysely";

// Ticket codes: every registration carries an unguessable code, shown as a QR code and scanned at
// the door. Existing attendees get one here (the same format as
// src/modules/attendees/ticket-code.ts, repeated because a migration imports nothing from the app),
// then a unique index makes a code name one registration across all projects, so a scan of another
// event's ticket is recognised as such and a lookup by code is one index probe.
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function code(): string {
  let raw = "";
  for (let i = 0; i < 16; i++) raw += alphabet[randomInt(alphabet.length)];
  return raw.replace(/(.{4})(?!$)/g, "$1-");
}

// 500 rows (1,000 bound values) per statement stays under every engine's parameter limit.
const batchSize = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("attendees").addColumn("ticket_code", "text").execute();
  for (;;) {
    const { rows } = await sql<{
      id: string;
    }>`select id from attendees where ticket_code is null limit ${batchSize}`.execute(db);
    if (rows.length === 0) break;
    const cases = sql.join(
      rows.map((r) => sql`when ${r.id} then ${code()}`),
      sql` `,
    );
    const ids = sql.join(rows.map((r) => sql`${r.id}`));
    await sql`update attendees set ticket_code = case id ${cases} end where id in (${ids})`.execute(db);
  }
  await db.schema
    .createIndex("attendees_ticket_code")
    .on("attendees")
    .column("ticket_code")
    .unique()
    .execute();
  // SQLite cannot add NOT NULL to an existing column; there the application keeps the rule.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    await sql`alter table attendees alter column ticket_code set not null`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("attendees_ticket_code").ifExists().execute();
  await db.schema.alterTable("attendees").dropColumn("ticket_code").execute();
}
