import { type Kysely, SqliteAdapter, sql } from "kysely";

// Attendee lists that stay cheap on a large project. Search (name, email, company; substring, case-insensitive) through an index instead of a
// LIKE scan of every row: on the ×100 demo one search scanned 200,000 rows and held the event loop
// for about a second. SQLite: an FTS5 table with the trigram tokenizer, kept in step by triggers and
// keyed by the attendee's rowid; its project_id column lets a search skip other projects' rows.
// PostgreSQL: a pg_trgm GIN index on the same text as one expression, which LIKE '%…%' uses.
// The text joins the fields with a newline so a search cannot match across two of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Counts and pages filtered by status or ticket type read these indexes alone: through the
  // (project_id, registered_at) index a count of cancelled attendees looked up all 200,000 rows of
  // the ×100 demo one by one (0.5 s warm, 5 s cold on SQLite) to read their status.
  await db.schema
    .createIndex("attendees_project_status")
    .on("attendees")
    .columns(["project_id", "status", "registered_at", "id"])
    .execute();
  await db.schema
    .createIndex("attendees_project_ticket_type")
    .on("attendees")
    .columns(["project_id", "ticket_type_id", "status", "registered_at", "id"])
    .execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`create virtual table attendees_search using fts5(project_id, body, tokenize = 'trigram')`.execute(
      db,
    );
    await sql`insert into attendees_search (rowid, project_id, body)
      select rowid, project_id, ${sqliteBody("")} from attendees`.execute(db);
    await sql`create trigger attendees_search_insert after insert on attendees begin
      insert into attendees_search (rowid, project_id, body) values (new.rowid, new.project_id, ${sqliteBody("new.")});
    end`.execute(db);
    await sql`create trigger attendees_search_update after update of project_id, name, email_normalized, company on attendees begin
      delete from attendees_search where rowid = old.rowid;
      insert into attendees_search (rowid, project_id, body) values (new.rowid, new.project_id, ${sqliteBody("new.")});
    end`.execute(db);
    await sql`create trigger attendees_search_delete after delete on attendees begin
      delete from attendees_search where rowid = old.rowid;
    end`.execute(db);
    return;
  }
  // pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index attendees_search_trgm on attendees using gin ((lower(name) || chr(10) || email_normalized || chr(10) || lower(coalesce(company, ''))) gin_trgm_ops)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("attendees_project_status").ifExists().execute();
  await db.schema.dropIndex("attendees_project_ticket_type").ifExists().execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`drop trigger if exists attendees_search_insert`.execute(db);
    await sql`drop trigger if exists attendees_search_update`.execute(db);
    await sql`drop trigger if exists attendees_search_delete`.execute(db);
    await sql`drop table if exists attendees_search`.execute(db);
    return;
  }
  await sql`drop index if exists attendees_search_trgm`.execute(db);
}

// The searchable text of a row, `prefix` naming the row (`new.` in a trigger). The trigram
// tokenizer folds case itself, so the fields go in as they are.
function sqliteBody(prefix: string) {
  const column = (name: string) => sql.raw(`${prefix}${name}`);
  return sql`${column("name")} || char(10) || ${column("email_normalized")} || char(10) || coalesce(${column("company")}, '')`;
}
