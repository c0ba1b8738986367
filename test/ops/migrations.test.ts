import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { channel } from "../../src/db/change-feed.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest, migrateUpTo, migrationNames, pendingMigrations } from "../../src/db/migrate.js";
import { normalizeTicketCode } from "../../src/modules/attendees/ticket-code.js";
import { runNode } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";
import { throwawayPostgresDatabase } from "../helpers/throwaway-database.js";

/** A new, empty database of each engine (PostgreSQL: created on the test server, dropped after). */
async function emptyDatabases(): Promise<{ engine: string; url: string; drop(): Promise<void> }[]> {
  const sqlite = `sqlite:${join(temporaryFolder("eventgraph-migrate-"), "db.sqlite")}`;
  const databases = [{ engine: "sqlite", url: sqlite, drop: async () => {} }];
  const server = process.env.DATABASE_URL_POSTGRES;
  if (server) databases.push({ engine: "postgres", ...(await throwawayPostgresDatabase(server, "migrate")) });
  return databases;
}

describe("migrations are forward-only from every released schema", () => {
  const last = migrationNames.length - 1;
  const cliSteps = new Set([0, Math.floor(migrationNames.length / 2), last]);
  // One walk per engine, one migration at a time, closing and reopening the database between steps
  // as an operator's upgrade does. Migrations are applied in one fixed order, so the schema after
  // step k is the same whether a walk stops there or passes through: "from the schema after k to the
  // latest" is exactly the rest of this walk. (Starting every step from an empty database proved
  // nothing more and grew with the square of the migrations: 225 s of CI at 80 of them.)
  test("from the schema after each migration, the later ones are pending (and listed by --dry-run), and applying the next one works", async () => {
    for (const target of await emptyDatabases()) {
      try {
        for (const [index, name] of migrationNames.entries()) {
          const step = `${target.engine}, after ${name}`;
          const database = openDatabase(target.url);
          try {
            await migrateUpTo(database.db, name);
            assert.deepEqual(await pendingMigrations(database.db), migrationNames.slice(index + 1), step);
          } finally {
            await database.close();
          }
          // The CLI reads the same list: proven at the first, a middle and the last step (a process
          // per step would make this the suite's longest file).
          if (cliSteps.has(index)) {
            const dryRun = await runNode(["bin/eventgraph.js", "migrate", "--dry-run", "--json"], {
              env: { DATABASE_URL: target.url },
            });
            assert.equal(dryRun.code, 0, dryRun.stderr);
            assert.deepEqual(JSON.parse(dryRun.stdout).pending, migrationNames.slice(index + 1), step);
          }
        }
        const reopened = openDatabase(target.url);
        try {
          // The dry runs changed nothing, and the latest schema has nothing left to apply.
          assert.deepEqual(await migrateToLatest(reopened.db), []);
        } finally {
          await reopened.close();
        }
      } finally {
        await target.drop();
      }
    }
  });

  test("--dry-run on an empty database lists every migration and creates nothing", async () => {
    const dir = temporaryFolder("eventgraph-migrate-");
    const url = `sqlite:${join(dir, "db.sqlite")}`;
    const dryRun = await runNode(["bin/eventgraph.js", "migrate", "--dry-run"], {
      env: { DATABASE_URL: url },
    });
    assert.equal(dryRun.code, 0, dryRun.stderr);
    for (const name of migrationNames) assert.match(dryRun.stdout, new RegExp(name));
    const database = openDatabase(url);
    try {
      assert.deepEqual(await pendingMigrations(database.db), migrationNames);
    } finally {
      await database.close();
    }
  });
});

describe("the ticket-code migration", () => {
  test("gives every existing attendee a distinct code, over more than one batch, then a unique index", async () => {
    for (const target of await emptyDatabases()) {
      const database = openDatabase(target.url);
      try {
        await migrateUpTo(database.db, "2026-11-24T02-00_invitations");
        const now = new Date().toISOString();
        await sql`insert into projects (id, name, timezone, status, created_at, updated_at) values ('Tc01', 'P', 'UTC', 'DRAFT', ${now}, ${now})`.execute(
          database.db,
        );
        await sql`insert into ticket_types (id, project_id, name, price_minor, currency, quantity, created_at, updated_at) values ('tt', 'Tc01', 'T', 0, 'EUR', 5000, ${now}, ${now})`.execute(
          database.db,
        );
        for (let batch = 0; batch < 3; batch++) {
          const rows = Array.from({ length: 400 }, (_, i) => {
            const n = batch * 400 + i;
            return sql`(${`a${n}`}, 'Tc01', 'tt', 'A', ${`a${n}@x.example`}, ${`a${n}@x.example`}, 'REGISTERED', ${now}, ${now})`;
          });
          await sql`insert into attendees (id, project_id, ticket_type_id, name, email, email_normalized, status, registered_at, updated_at) values ${sql.join(rows)}`.execute(
            database.db,
          );
        }
        await migrateToLatest(database.db);
        const { rows } = await sql<{ ticket_code: string | null }>`select ticket_code from attendees`.execute(
          database.db,
        );
        assert.equal(rows.length, 1_200, target.engine);
        assert.ok(rows.every((r) => r.ticket_code && normalizeTicketCode(r.ticket_code) === r.ticket_code));
        assert.equal(new Set(rows.map((r) => r.ticket_code)).size, 1_200);
        await assert.rejects(
          sql`update attendees set ticket_code = (select ticket_code from attendees where id = 'a0') where id = 'a1'`.execute(
            database.db,
          ),
          /unique|UNIQUE/,
        );
      } finally {
        await database.close();
        await target.drop();
      }
    }
  });
});

describe("the Overview's counters migration", () => {
  test("counts the attendees and check-ins already there, as a recount does", async () => {
    for (const target of await emptyDatabases()) {
      const database = openDatabase(target.url);
      try {
        await migrateUpTo(database.db, "2026-11-28T18-00_registration-links");
        const now = "2026-05-04T09:00:00.000Z";
        await sql`insert into projects (id, name, timezone, status, created_at, updated_at) values ('Oc01', 'P', 'UTC', 'DRAFT', ${now}, ${now})`.execute(
          database.db,
        );
        for (const type of ["t1", "t2"]) {
          await sql`insert into ticket_types (id, project_id, name, price_minor, currency, quantity, created_at, updated_at) values (${type}, 'Oc01', ${type}, 0, 'EUR', 500, ${now}, ${now})`.execute(
            database.db,
          );
        }
        const rows = Array.from({ length: 30 }, (_, n) => {
          const registered = `2026-05-0${1 + (n % 3)}T1${n % 4}:20:00.000Z`;
          const status = n % 5 === 0 ? "CANCELLED" : "REGISTERED";
          return sql`(${`a${n}`}, 'Oc01', ${n % 2 ? "t1" : "t2"}, 'A', ${`a${n}@x.example`}, ${`a${n}@x.example`}, ${status}, ${registered}, ${now}, ${`CODE${n}`})`;
        });
        await sql`insert into attendees (id, project_id, ticket_type_id, name, email, email_normalized, status, registered_at, updated_at, ticket_code) values ${sql.join(rows)}`.execute(
          database.db,
        );
        const checkIns = Array.from({ length: 20 }, (_, n) => {
          const at = `2026-05-04T0${8 + (n % 2)}:${String(n * 2).padStart(2, "0")}:00.000Z`;
          return sql`(${`c${n}`}, 'Oc01', ${`a${n}`}, ${at}, ${n % 7 === 0 ? now : null})`;
        });
        await sql`insert into check_ins (id, project_id, attendee_id, checked_in_at, undone_at) values ${sql.join(checkIns)}`.execute(
          database.db,
        );
        await migrateToLatest(database.db);
        const read = async (statement: ReturnType<typeof sql.raw>) =>
          (await statement.execute(database.db)).rows.map((row) =>
            Object.values(row as object).map((v) =>
              typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v,
            ),
          );
        assert.deepEqual(
          await read(
            sql.raw(
              "select ticket_type_id, registered, checked_in from overview_ticket_counts order by ticket_type_id",
            ),
          ),
          await read(
            sql.raw(`select a.ticket_type_id, count(*) as registered, count(c.id) as checked_in from attendees a
              left join check_ins c on c.attendee_id = a.id and c.undone_at is null
              where a.status = 'REGISTERED' group by a.ticket_type_id order by 1`),
          ),
          target.engine,
        );
        assert.deepEqual(
          await read(sql.raw("select hour, registrations from overview_registrations order by hour")),
          await read(
            sql.raw(
              "select substr(registered_at, 1, 13) as hour, count(*) as n from attendees group by 1 order by 1",
            ),
          ),
          target.engine,
        );
        const quarters = await read(
          sql.raw("select hour, quarter, check_ins from overview_check_ins order by hour, quarter"),
        );
        assert.deepEqual(
          quarters,
          await read(
            sql.raw(`select substr(checked_in_at, 1, 13) as hour, cast(substr(checked_in_at, 15, 2) as integer) / 15 as quarter,
              count(*) as n from check_ins where undone_at is null group by 1, 2 order by 1, 2`),
          ),
          target.engine,
        );
        assert.ok(quarters.length >= 4, "check-ins in several quarters");
      } finally {
        await database.close();
        await target.drop();
      }
    }
  });
});

/** The payload of the next notification `listener` hears; fails after 5 s instead of hanging the run. */
function nextNotification(listener: pg.Client): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no notification within 5 s")), 5_000);
    listener.once("notification", (message) => {
      clearTimeout(timer);
      resolve(message.payload);
    });
  });
}

describe("the project-versions migration", () => {
  test("carries every project's counters to project_versions; PostgreSQL announces both tables' bumps", async () => {
    for (const target of await emptyDatabases()) {
      const database = openDatabase(target.url);
      try {
        await migrateUpTo(database.db, "2026-11-24T19-00_session-speaker-order");
        const now = new Date().toISOString();
        for (const [id, agenda] of [
          ["Pv01", 7],
          ["Pv02", 0],
        ] as const) {
          await sql`insert into projects (id, name, timezone, status, created_at, updated_at, agenda_version, checkins_version)
            values (${id}, 'P', 'UTC', 'DRAFT', ${now}, ${now}, ${agenda}, 3)`.execute(database.db);
        }
        await migrateToLatest(database.db);
        const { rows } = await sql<{ project_id: string; agenda_version: number; checkins_version: number }>`
          select project_id, agenda_version, checkins_version from project_versions order by project_id`.execute(
          database.db,
        );
        assert.deepEqual(
          rows.map((r) => [r.project_id, Number(r.agenda_version), Number(r.checkins_version)]),
          [
            ["Pv01", 7, 3],
            ["Pv02", 0, 3],
          ],
          target.engine,
        );
        if (target.engine === "postgres") {
          // The change notifications now come from the new table (src/db/change-feed.ts listens).
          const listener = new pg.Client({ connectionString: target.url });
          await listener.connect();
          try {
            await listener.query(`listen ${channel}`);
            const heard = nextNotification(listener);
            await sql`update project_versions set checkins_version = checkins_version + 1 where project_id = 'Pv01'`.execute(
              database.db,
            );
            assert.equal(await heard, "Pv01:16");
            // A process of the previous release, during a rolling upgrade, still bumps the project's
            // row: its writes are still announced, so this release's processes evict on them.
            const old = nextNotification(listener);
            await sql`update projects set agenda_version = agenda_version + 1, data_version = data_version + 1 where id = 'Pv02'`.execute(
              database.db,
            );
            assert.equal(await old, "Pv02:2");
          } finally {
            await listener.end();
          }
        }
      } finally {
        await database.close();
        await target.drop();
      }
    }
  });
});
