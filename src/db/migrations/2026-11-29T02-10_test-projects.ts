import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * Test projects (issue 41): a developer's project filled with demo data, marked `is_test` (1) for
 * good. A test project is never published: the database refuses it, whatever path writes the
 * status (a CHECK on PostgreSQL; triggers on SQLite, whose ALTER TABLE cannot add a CHECK that
 * reads two columns). The seed its demo data was generated from is kept, so a reset rebuilds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("is_test", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("projects").addColumn("test_seed", "integer").execute();
  if (await isPostgres(db)) {
    await sql`alter table projects add constraint projects_test_never_published
      check (is_test = 0 or status <> 'PUBLISHED')`.execute(db);
    return;
  }
  for (const event of ["insert", "update"]) {
    await sql
      .raw(
        `create trigger projects_test_never_published_${event} before ${event} on projects
         when new.is_test <> 0 and new.status = 'PUBLISHED'
         begin select raise(abort, 'CHECK constraint failed: projects_test_never_published'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    await sql`alter table projects drop constraint projects_test_never_published`.execute(db);
  } else {
    for (const event of ["insert", "update"]) {
      await sql.raw(`drop trigger projects_test_never_published_${event}`).execute(db);
    }
  }
  await db.schema.alterTable("projects").dropColumn("test_seed").execute();
  await db.schema.alterTable("projects").dropColumn("is_test").execute();
}
