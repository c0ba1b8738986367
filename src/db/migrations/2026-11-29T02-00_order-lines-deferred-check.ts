import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * PostgreSQL: an order line's reference to its ticket type is checked at commit. Deleting a project
 * cascades to its ticket types and, by another path, to its orders and their lines; checked at once,
 * the ticket types' deletion met lines not yet deleted and the whole project's deletion failed.
 * Checked at commit, as SQLite checks it at the end of the statement, the lines are gone by then,
 * and deleting a ticket type that still has lines is refused as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql`alter table order_lines alter constraint order_lines_ticket_type_id_fkey deferrable initially deferred`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql`alter table order_lines alter constraint order_lines_ticket_type_id_fkey not deferrable`.execute(
    db,
  );
}
