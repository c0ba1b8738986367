import { SqliteAdapter, sql } from "kysely";
import type { Db } from "../../db/database.js";

// The text search of the attendee list, apart from the list's other filters (attendees.repository):
// each engine has its own index and statement for it. Named as a repository so that, like one, only
// the attendees module may import it.

/**
 * A search looks at no more than this many matching attendees (the first ones the index yields): a
 * term found in every row then reads 2,000 index entries and rows, not the whole table. On the ×100
 * demo (200,000 attendees) 10,000 took ~130 ms per statement, 2,000 about 5 ms.
 */
const maxSearchMatches = 2_000;

// LIKE treats % and _ as wildcards; a search for "50%" must find the text "50%".
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// The attendees of the project whose name, email or company contains `search` (lower-cased), through
// the index made by the 2026-11-24T01-00_search-index migration: the trigram FTS5 table on SQLite,
// the pg_trgm expression index on PostgreSQL (the expression must stay identical to the index's).
// Several words match in any order ("sato ivan" finds "Ivan Sato"): every word of 3 or more
// characters goes to the index; shorter words (which trigrams cannot find) filter those matches.
// Only short words ("li na") search for the whole text as one phrase, as a single word does.
export function searchMatches(db: Db, projectId: string, search: string) {
  const words = search.split(/\s+/).filter((w) => w !== "");
  const indexed = words.filter((w) => [...w].length >= 3);
  const terms = indexed.length > 0 ? indexed : [search];
  const short = indexed.length > 0 ? words.filter((w) => [...w].length < 3) : [];
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const found = sqlite ? sqliteMatches(projectId, terms) : postgresMatches(projectId, terms);
  if (short.length === 0) return found;
  const text = sqlite
    ? sql`lower(attendees.name) || char(10) || attendees.email_normalized || char(10) || lower(coalesce(attendees.company, ''))`
    : sql`lower(attendees.name) || chr(10) || attendees.email_normalized || chr(10) || lower(coalesce(attendees.company, ''))`;
  const filters = short.map((w) => sql`${text} like ${likePattern(w)} escape '\\'`);
  return sql<boolean>`(${found} and ${sql.join(filters, sql` and `)})`;
}

function sqliteMatches(projectId: string, terms: string[]) {
  // An FTS5 phrase is literal text (no wildcards); a quote inside it is doubled.
  const phrases = terms.map((t) => `body : "${t.replaceAll('"', '""')}"`).join(" AND ");
  const match = `project_id : "${projectId}" AND ${phrases}`;
  return sql<boolean>`attendees.rowid in (select rowid from attendees_search where attendees_search match ${match} limit ${maxSearchMatches})`;
}

function postgresMatches(projectId: string, terms: string[]) {
  const likes = terms.map(
    (t) =>
      sql`(lower(name) || chr(10) || email_normalized || chr(10) || lower(coalesce(company, ''))) like ${likePattern(t)} escape '\\'`,
  );
  // `= any(array(…))` runs the bounded lookup once (an InitPlan); `in (… limit …)` could not be
  // flattened and was re-run for every row of the project (12 s on 2,000 attendees without stats).
  return sql<boolean>`attendees.id = any(array(select id from attendees where project_id = ${projectId} and ${sql.join(likes, sql` and `)} limit ${maxSearchMatches}))`;
}
