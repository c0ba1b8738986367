import { type Kysely, sql } from "kysely";

// Two ticket types of one project with the same name ("Standard" twice) were accepted, and a CSV
// import then put every row on one of them silently. A unique index on the lower-cased name refuses
// them from now on; existing duplicates are renamed first ("Standard (2)"), oldest keeping its name,
// since the index cannot be built over them and deleting either would lose registrations.
export async function up(db: Kysely<unknown>): Promise<void> {
  const rows = await sql<{ id: string; project_id: string; name: string }>`
    select id, project_id, name from ticket_types order by project_id, created_at, id
  `.execute(db);
  const taken = new Map<string, Set<string>>();
  const renames: { id: string; name: string }[] = [];
  for (const row of rows.rows) {
    const names = taken.get(row.project_id) ?? new Set<string>();
    taken.set(row.project_id, names);
    let name = row.name;
    for (let n = 2; names.has(name.toLowerCase()); n++) name = `${row.name} (${n})`;
    names.add(name.toLowerCase());
    if (name !== row.name) renames.push({ id: row.id, name });
  }
  for (const { id, name } of renames) {
    await sql`update ticket_types set name = ${name} where id = ${id}`.execute(db);
  }
  await sql`create unique index ticket_types_project_name on ticket_types (project_id, lower(name))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ticket_types_project_name`.execute(db);
}
