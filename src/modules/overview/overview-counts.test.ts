import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createAttendee,
  createProject,
  createTicketType,
  userActor,
} from "../../../test/helpers/factories.js";
import { type PlainSql, plainSql } from "../../../test/helpers/plain-sql.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { throwawayPostgresDatabase } from "../../../test/helpers/throwaway-database.js";
import { openDatabase } from "../../db/database.js";
import { migrateToLatest } from "../../db/migrate.js";

// The Overview reads counters that triggers keep (migration 2026-11-28T21-00_overview-counts).
// They must equal a recount of the attendees and check-ins themselves, the statements the Overview
// ran before, after every kind of write: the product's (registrations, cancellations, check-ins and
// undos, an import, a project's deletion), an operator's plain SQL (moves, status changes, deletions
// with SQLite's foreign keys off as in its shell), and many of them at once.

type Rows = Record<string, unknown>[];
const numbers = (rows: Rows) =>
  rows.map((row) =>
    Object.values(row).map((v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v)),
  );

/** The counters of `projectId` and the same figures counted from the rows, side by side. */
async function countersAndRecount(sql: PlainSql, projectId: string) {
  const counters = {
    ticketTypes: numbers(
      await sql.all(
        `select t.id, coalesce(o.registered, 0) as sold, coalesce(o.checked_in, 0) as checked_in
         from ticket_types t left join overview_ticket_counts o on o.ticket_type_id = t.id
         where t.project_id = ? order by t.id`,
        projectId,
      ),
    ),
    hours: numbers(
      await sql.all(
        "select hour, registrations from overview_registrations where project_id = ? and registrations > 0 order by hour",
        projectId,
      ),
    ),
    quarters: numbers(
      await sql.all(
        "select hour, quarter, check_ins from overview_check_ins where project_id = ? and check_ins > 0 order by hour, quarter",
        projectId,
      ),
    ),
  };
  const recount = {
    ticketTypes: numbers(
      await sql.all(
        `select t.id, count(a.id) as sold, count(c.id) as checked_in from ticket_types t
         left join attendees a on a.ticket_type_id = t.id and a.status = 'REGISTERED'
         left join check_ins c on c.attendee_id = a.id and c.undone_at is null
         where t.project_id = ? group by t.id order by t.id`,
        projectId,
      ),
    ),
    hours: numbers(
      await sql.all(
        `select substr(registered_at, 1, 13) as hour, count(*) as n from attendees where project_id = ?
         group by substr(registered_at, 1, 13) order by 1`,
        projectId,
      ),
    ),
    quarters: numbers(
      await sql.all(
        `select substr(checked_in_at, 1, 13) as hour, cast(substr(checked_in_at, 15, 2) as integer) / 15 as quarter,
           count(*) as n
         from check_ins where project_id = ? and undone_at is null
         group by substr(checked_in_at, 1, 13), cast(substr(checked_in_at, 15, 2) as integer) / 15
         order by 1, 2`,
        projectId,
      ),
    ),
  };
  return { counters, recount };
}

for (const engine of testEngines()) {
  describe(`the Overview's counters equal a recount (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);
    let sql: PlainSql;
    before(async () => {
      sql = await plainSql(ctx.config.databaseUrl);
    });
    after(() => sql.close());

    test("after registrations, cancellations, check-ins, undos, an import, plain SQL and deletions", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const day = await createTicketType(ctx.services, owner, project.id, { name: "Day", quantity: 500 });
      const vip = await createTicketType(ctx.services, owner, project.id, { name: "VIP", quantity: 500 });
      const people = [];
      for (let i = 0; i < 12; i++)
        people.push(await createAttendee(ctx.services, owner, project.id, i % 3 ? day.id : vip.id));
      const csv = `name,email,ticket type\n${Array.from({ length: 20 }, (_, i) => `I${i},i${i}-${project.id}@example.org,${i % 2 ? "Day" : "VIP"}`).join("\n")}`;
      const upload = await ctx.services.attendeeFiles.upload(owner, project.id, "list.csv", Buffer.from(csv));
      const { done } = await ctx.services.attendeeFiles.start(
        owner,
        project.id,
        upload.id,
        { map_name: "0", map_email: "1", map_ticketType: "2" },
        { sendTickets: false },
      );
      assert.equal((await done).imported, 20);
      const [a, b, c, d, e, f, g, h] = people.map((p) => p.id) as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      for (const id of [a, b, c, d, e, f]) await ctx.services.checkins.checkIn(owner, { attendeeId: id });
      await ctx.services.checkins.undoCheckIn(owner, { attendeeId: b });
      await ctx.services.attendees.cancelAttendee(owner, { id: c }); // checked in: undone with it
      await ctx.services.attendees.cancelAttendee(owner, { id: g });

      // An operator's plain SQL: a checked-in attendee moved to the other ticket type, a cancelled
      // one registered again, registrations and check-ins moved in time, a check-in undone and one
      // deleted, a checked-in attendee deleted (its check-in stays on SQLite, foreign keys off).
      await sql.run("update attendees set ticket_type_id = ? where id = ?", vip.id, d);
      await sql.run("update attendees set status = 'REGISTERED', cancelled_at = null where id = ?", g);
      await sql.run(
        "update attendees set registered_at = '2026-03-01T08:10:00.000Z' where id in (?, ?)",
        h,
        a,
      );
      await sql.run(
        "update check_ins set checked_in_at = '2026-05-04T09:47:00.000Z' where attendee_id = ?",
        d,
      );
      await sql.run("update check_ins set undone_at = '2026-05-04T10:00:00.000Z' where attendee_id = ?", e);
      await sql.run("delete from check_ins where attendee_id = ? and undone_at is null", f);
      await sql.run("delete from attendees where id = ?", a);

      // Many at once, on PostgreSQL over several connections: check-ins, registrations, cancellations.
      const imported = await sql.all<{ id: string }>(
        "select id from attendees where project_id = ? and name like 'I%' order by id",
        project.id,
      );
      await Promise.all([
        ...imported.slice(0, 15).map((r) => ctx.services.checkins.checkIn(owner, { attendeeId: r.id })),
        ...imported.slice(15).map((r) => ctx.services.attendees.cancelAttendee(owner, { id: r.id })),
        ...Array.from({ length: 8 }, (_, i) =>
          createAttendee(ctx.services, owner, project.id, i % 2 ? day.id : vip.id),
        ),
        sql.run("update attendees set status = 'CANCELLED' where id = ?", h),
      ]);
      await Promise.all(
        imported.slice(0, 5).map((r) => ctx.services.checkins.undoCheckIn(owner, { attendeeId: r.id })),
      );

      const { counters, recount } = await countersAndRecount(sql, project.id);
      assert.deepEqual(counters, recount);
      assert.ok(recount.quarters.length >= 2 && recount.hours.length >= 2, "several hours and quarters");

      const access = await ctx.services.access.require(owner, project.id);
      const overview = await ctx.services.overview.overview(access, project);
      const checkedIn = await sql.all<{ n: number | string }>(
        `select count(*) as n from check_ins c join attendees a on a.id = c.attendee_id
         where c.project_id = ? and c.undone_at is null and a.status = 'REGISTERED'`,
        project.id,
      );
      assert.equal(overview.checkedIn, Number(checkedIn[0]?.n));
      assert.equal(
        overview.registered,
        recount.ticketTypes.reduce((sum, row) => sum + Number(row[1]), 0),
      );
    });

    test("a deleted project leaves no counters behind", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const type = await createTicketType(ctx.services, owner, project.id);
      for (let i = 0; i < 3; i++) {
        const attendee = await createAttendee(ctx.services, owner, project.id, type.id);
        await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      }
      await ctx.services.projects.delete(owner, project.id, project.id);
      for (const table of ["overview_registrations", "overview_check_ins"]) {
        assert.deepEqual(await sql.all(`select * from ${table} where project_id = ?`, project.id), [], table);
      }
      assert.deepEqual(
        await sql.all("select * from overview_ticket_counts where ticket_type_id = ?", type.id),
        [],
      );
    });
  });
}

// PostgreSQL's TRUNCATE fires no row trigger; it empties the counters instead. On a database of its
// own: a TRUNCATE takes every project's rows.
const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("a TRUNCATE empties the Overview's counters (postgres)", {
  skip: postgres ? false : "no PostgreSQL",
}, () => {
  test("of check_ins, then of attendees", async () => {
    const own = await throwawayPostgresDatabase(postgres?.newDatabaseUrl() ?? "", "overview");
    const database = openDatabase(own.url);
    let sql: PlainSql | undefined;
    try {
      await migrateToLatest(database.db);
      sql = await plainSql(own.url);
      const now = "2026-05-04T09:00:00.000Z";
      await sql.run(
        "insert into projects (id, name, timezone, status, created_at, updated_at) values ('Tr01', 'P', 'UTC', 'DRAFT', ?, ?)",
        now,
        now,
      );
      await sql.run(
        "insert into ticket_types (id, project_id, name, price_minor, currency, quantity, created_at, updated_at) values ('tt', 'Tr01', 'T', 0, 'EUR', 9, ?, ?)",
        now,
        now,
      );
      for (const n of [1, 2, 3]) {
        await sql.run(
          `insert into attendees (id, project_id, ticket_type_id, name, email, email_normalized, status, registered_at, updated_at, ticket_code)
           values (?, 'Tr01', 'tt', 'A', ?, ?, 'REGISTERED', ?, ?, ?)`,
          `a${n}`,
          `a${n}@x.example`,
          `a${n}@x.example`,
          now,
          now,
          `CODE${n}`,
        );
        await sql.run(
          "insert into check_ins (id, project_id, attendee_id, checked_in_at) values (?, 'Tr01', ?, ?)",
          `c${n}`,
          `a${n}`,
          now,
        );
      }
      const counts = async () =>
        numbers((await sql?.all("select registered, checked_in from overview_ticket_counts")) ?? []);
      assert.deepEqual(await counts(), [[3, 3]]);
      await sql.run("truncate check_ins");
      assert.deepEqual(await counts(), [[3, 0]]);
      assert.deepEqual(await sql.all("select * from overview_check_ins"), []);
      await sql.run("truncate attendees cascade");
      assert.deepEqual(await counts(), [[0, 0]]);
      assert.deepEqual(await sql.all("select * from overview_registrations"), []);
    } finally {
      await sql?.close();
      await database.close();
      await own.drop();
    }
  });
});
