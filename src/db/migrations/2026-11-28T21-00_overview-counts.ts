import { type Kysely, sql } from "kysely";
import { isPostgres } from "./engine.js";

/**
 * The Overview's figures as counters the database keeps: registrations and check-ins per ticket
 * type, registrations per UTC hour, active check-ins per UTC quarter hour. Counting them at each
 * view read every attendee and check-in of the project: 1.3 s of event loop on SQLite with 200,000
 * attendees (issue 39); the counters make the page read a few rows whatever the attendee count.
 *
 * Triggers keep them, in the writing transaction, whoever writes (the product, the CLI, another
 * process, an operator's plain SQL), like the access versions (2026-11-28T10-00). What each counts:
 * - overview_ticket_counts: per ticket type, its REGISTERED attendees (`registered`) and how many of
 *   those have an active check-in (`checked_in`; at most one per attendee, a unique index says so);
 * - overview_registrations: every attendee (any status) per project and `substr(registered_at,1,13)`;
 * - overview_check_ins: active check-ins (undone_at null) per project, hour and quarter (0–3).
 *
 * A deleted attendee is uncounted by a BEFORE trigger, while its check-in still exists: its
 * check-ins go by cascade afterwards, when the attendee is no longer visible, so their own trigger
 * finds no registered attendee and leaves `checked_in` alone (exactly one of the two counts it).
 *
 * On PostgreSQL every trigger first locks the project's version row, as every write does at its end
 * (ProjectChanges): the counter rows are then always locked after it, so writers of one project
 * never wait on each other in opposite orders (a deadlock), and a trigger that reads the other
 * table (an attendee's status, its active check-in) runs after the commit of any concurrent writer
 * of the project and sees its rows. A TRUNCATE, which fires no row trigger, empties the counters.
 */

/** A SQLite (`when`) or PostgreSQL (`when (…)`) condition: one of `columns` really changed. */
function changed(columns: readonly string[], postgres: boolean): string {
  const distinct = postgres ? "is distinct from" : "is not";
  return columns.map((c) => `old.${c} ${distinct} new.${c}`).join(" or ");
}

const hourOf = (row: string, column: string) => `substr(${row}.${column}, 1, 13)`;
const quarterOf = (row: "new" | "old") => `cast(substr(${row}.checked_in_at, 15, 2) as integer) / 15`;
const activeCheckInOf = (row: "new" | "old") =>
  `(select count(*) from check_ins where attendee_id = ${row}.id and undone_at is null)`;
const registeredTicketTypeOf = (row: "new" | "old") =>
  `(select ticket_type_id from attendees where id = ${row}.attendee_id and status = 'REGISTERED')`;

/** The statements that count attendee `row` in (+) or out (−). */
function attendeeCounts(row: "new" | "old", sign: "+" | "-"): string[] {
  if (sign === "+")
    return [
      `insert into overview_registrations (project_id, hour, registrations)
         values (new.project_id, ${hourOf(row, "registered_at")}, 1)
         on conflict (project_id, hour) do update set registrations = overview_registrations.registrations + 1`,
      `insert into overview_ticket_counts (ticket_type_id, registered, checked_in)
         select new.ticket_type_id, 1, ${activeCheckInOf(row)} where new.status = 'REGISTERED'
         on conflict (ticket_type_id) do update set
           registered = overview_ticket_counts.registered + 1,
           checked_in = overview_ticket_counts.checked_in + excluded.checked_in`,
    ];
  // Only ever an update: a decrement during a project's deletion must not insert a row again.
  return [
    `update overview_registrations set registrations = registrations - 1
       where project_id = old.project_id and hour = ${hourOf(row, "registered_at")}`,
    `update overview_ticket_counts
       set registered = registered - 1, checked_in = checked_in - ${activeCheckInOf(row)}
       where ticket_type_id = old.ticket_type_id and old.status = 'REGISTERED'`,
  ];
}

/** The statements that count check-in `row` in (+) or out (−), when it is active. */
function checkInCounts(row: "new" | "old", sign: "+" | "-"): string[] {
  if (sign === "+")
    return [
      `insert into overview_check_ins (project_id, hour, quarter, check_ins)
         select new.project_id, ${hourOf(row, "checked_in_at")}, ${quarterOf(row)}, 1 where new.undone_at is null
         on conflict (project_id, hour, quarter) do update set check_ins = overview_check_ins.check_ins + 1`,
      `update overview_ticket_counts set checked_in = checked_in + 1
         where new.undone_at is null and ticket_type_id = ${registeredTicketTypeOf(row)}`,
    ];
  return [
    `update overview_check_ins set check_ins = check_ins - 1
       where old.undone_at is null and project_id = old.project_id
         and hour = ${hourOf(row, "checked_in_at")} and quarter = ${quarterOf(row)}`,
    `update overview_ticket_counts set checked_in = checked_in - 1
       where old.undone_at is null and ticket_type_id = ${registeredTicketTypeOf(row)}`,
  ];
}

interface CountTrigger {
  name: string;
  table: "attendees" | "check_ins";
  timing: "before" | "after";
  event: "insert" | "delete" | "update";
  /** For an update: the columns whose change fires it. */
  columns?: readonly string[];
  /** The projects whose version row is locked first (PostgreSQL). */
  projects: string;
  statements: string[];
}

const attendeeColumns = ["project_id", "ticket_type_id", "status", "registered_at"] as const;
const checkInColumns = ["project_id", "attendee_id", "checked_in_at", "undone_at"] as const;

const countTriggers: readonly CountTrigger[] = [
  {
    name: "attendee_insert",
    table: "attendees",
    timing: "after",
    event: "insert",
    projects: "new.project_id",
    statements: attendeeCounts("new", "+"),
  },
  {
    name: "attendee_update",
    table: "attendees",
    timing: "after",
    event: "update",
    columns: attendeeColumns,
    projects: "old.project_id, new.project_id",
    statements: [...attendeeCounts("old", "-"), ...attendeeCounts("new", "+")],
  },
  {
    name: "attendee_delete",
    table: "attendees",
    timing: "before",
    event: "delete",
    projects: "old.project_id",
    statements: attendeeCounts("old", "-"),
  },
  {
    name: "check_in_insert",
    table: "check_ins",
    timing: "after",
    event: "insert",
    projects: "new.project_id",
    statements: checkInCounts("new", "+"),
  },
  {
    name: "check_in_update",
    table: "check_ins",
    timing: "after",
    event: "update",
    columns: checkInColumns,
    projects: "old.project_id, new.project_id",
    statements: [...checkInCounts("old", "-"), ...checkInCounts("new", "+")],
  },
  {
    name: "check_in_delete",
    table: "check_ins",
    timing: "after",
    event: "delete",
    projects: "old.project_id",
    statements: checkInCounts("old", "-"),
  },
];

async function createTriggers(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  for (const trigger of countTriggers) {
    const name = `overview_counts_${trigger.name}`;
    const event = trigger.columns ? `update of ${trigger.columns.join(", ")}` : trigger.event;
    const when = trigger.columns ? changed(trigger.columns, postgres) : undefined;
    const body = trigger.statements.map((s) => `${s};`).join("\n");
    if (postgres) {
      await sql
        .raw(`
          create function ${name}() returns trigger language plpgsql as $$
          begin
            perform 1 from project_versions where project_id in (${trigger.projects})
              order by project_id for update;
            ${body}
            return ${trigger.timing === "before" ? "old" : "null"};
          end;
          $$`)
        .execute(db);
      await sql
        .raw(`
          create trigger ${name} ${trigger.timing} ${event} on ${trigger.table}
          for each row ${when ? `when (${when})` : ""} execute function ${name}()`)
        .execute(db);
    } else {
      await sql
        .raw(`
          create trigger ${name} ${trigger.timing} ${event} on ${trigger.table}
          for each row ${when ? `when ${when}` : ""}
          begin ${body} end`)
        .execute(db);
    }
  }
  if (!postgres) return;
  // TRUNCATE fires no row trigger; it empties every project's rows, so the counts become zero.
  await sql`
    create function overview_counts_truncate() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'attendees' then
        delete from overview_registrations;
        update overview_ticket_counts set registered = 0, checked_in = 0;
      else
        delete from overview_check_ins;
        update overview_ticket_counts set checked_in = 0;
      end if;
      return null;
    end;
    $$`.execute(db);
  for (const table of ["attendees", "check_ins"]) {
    await sql
      .raw(`
        create trigger overview_counts_truncate after truncate on ${table}
        for each statement execute function overview_counts_truncate()`)
      .execute(db);
  }
}

/**
 * The counters of the rows already there, counted after the triggers exist and written over
 * whatever the triggers counted meanwhile: on PostgreSQL creating the triggers locks writers out
 * until this migration commits; on SQLite (no transaction around a migration) a write of another
 * process between the triggers and a statement here is in that statement's count, and one after it
 * is added by the triggers, so no row is counted twice or missed. (`where true`: SQLite's upsert
 * after a SELECT needs a WHERE to parse.)
 */
async function backfill(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into overview_ticket_counts (ticket_type_id, registered, checked_in)
    select a.ticket_type_id, count(*), count(c.id)
    from attendees a left join check_ins c on c.attendee_id = a.id and c.undone_at is null
    where a.status = 'REGISTERED'
    group by a.ticket_type_id
    on conflict (ticket_type_id) do update set registered = excluded.registered, checked_in = excluded.checked_in`.execute(
    db,
  );
  await sql`
    insert into overview_registrations (project_id, hour, registrations)
    select project_id, substr(registered_at, 1, 13), count(*) from attendees where true
    group by project_id, substr(registered_at, 1, 13)
    on conflict (project_id, hour) do update set registrations = excluded.registrations`.execute(db);
  await sql`
    insert into overview_check_ins (project_id, hour, quarter, check_ins)
    select project_id, substr(checked_in_at, 1, 13), cast(substr(checked_in_at, 15, 2) as integer) / 15, count(*)
    from check_ins where undone_at is null
    group by project_id, substr(checked_in_at, 1, 13), cast(substr(checked_in_at, 15, 2) as integer) / 15
    on conflict (project_id, hour, quarter) do update set check_ins = excluded.check_ins`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  await db.schema
    .createTable("overview_ticket_counts")
    .addColumn("ticket_type_id", "text", (c) =>
      c.primaryKey().references("ticket_types.id").onDelete("cascade"),
    )
    .addColumn("registered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("checked_in", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("overview_registrations")
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("hour", "text", (c) => c.notNull())
    .addColumn("registrations", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("overview_registrations_pk", ["project_id", "hour"])
    .execute();
  await db.schema
    .createTable("overview_check_ins")
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("hour", "text", (c) => c.notNull())
    .addColumn("quarter", "integer", (c) => c.notNull())
    .addColumn("check_ins", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("overview_check_ins_pk", ["project_id", "hour", "quarter"])
    .execute();
  await createTriggers(db, postgres);
  await backfill(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  for (const trigger of countTriggers) {
    const name = `overview_counts_${trigger.name}`;
    await sql.raw(`drop trigger if exists ${name}${postgres ? ` on ${trigger.table}` : ""}`).execute(db);
    if (postgres) await sql.raw(`drop function if exists ${name}()`).execute(db);
  }
  if (postgres) {
    for (const table of ["attendees", "check_ins"])
      await sql.raw(`drop trigger if exists overview_counts_truncate on ${table}`).execute(db);
    await sql`drop function if exists overview_counts_truncate()`.execute(db);
  }
  for (const table of ["overview_check_ins", "overview_registrations", "overview_ticket_counts"])
    await db.schema.dropTable(table).execute();
}
