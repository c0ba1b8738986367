import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import SQLite from "better-sqlite3";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createLogger } from "../../src/logger.js";
import { createServices } from "../../src/services.js";
import { onlyJson, runCliInProcess, stackLine } from "../helpers/cli.js";
import { gql } from "../helpers/graphql.js";
import { postgresMissing } from "../helpers/requirements.js";
import { temporaryFolder } from "../helpers/temporary.js";
import { startTestServer } from "../helpers/test-server.js";
import { throwawayPostgresDatabase } from "../helpers/throwaway-database.js";

// The reads an app with every read permission makes of the demo conference: the agenda, the
// ticket figures (counted from attendees), attendees page by page with their check-ins, a search
// (SQLite's full-text index is rebuilt on a SQLite target, PostgreSQL's trigram index is its own),
// and the public view.
const reads = [
  `query($id: ID!) { project(id: $id) { id name status timezone startsAt endsAt createdAt updatedAt
     venue { name city } rooms(first: 100) { totalCount edges { node { id name capacity } } }
     tracks(first: 100) { edges { node { id name } } } } }`,
  `query($id: ID!) { project(id: $id) { allSessions(first: 100) { totalCount pageInfo { endCursor hasNextPage }
     edges { node { id title status startsAt endsAt capacity room { id } track { id } speakers { id name } } } } } }`,
  `query($id: ID!) { project(id: $id) { allSpeakers(first: 100) { totalCount edges { node { id name company links { url } } } } } }`,
  `query($id: ID!) { project(id: $id) { allTicketTypes(first: 100) { edges { node { id name price { amountMinor currency } capacity sold remaining } } } } }`,
  `query($id: ID!) { project(id: $id) { attendees(first: 100) { totalCount pageInfo { endCursor hasNextPage }
     edges { node { id name email company status registeredAt ticketCode checkedIn ticketType { id } checkIn { checkedInAt source } } } } } }`,
  `query($id: ID!) { project(id: $id) { attendees(last: 50, status: CANCELLED) { totalCount edges { node { id cancelledAt } } } } }`,
  `query($id: ID!) { project(id: $id) { attendees(first: 20, search: "ann") { totalCount edges { node { id name } } } } }`,
  `query { viewer { name permissions projects(first: 10) { edges { node { id name } } } } }`,
];

/** What a server answers to `reads`: the data and errors, without the cost and cache extensions. */
async function answers(url: string, token: string, projectId: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of reads) {
    const response = await gql(url, query, { token, variables: { id: projectId } });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
    out.push(response.body.data);
  }
  const publicRead = await gql(
    url,
    `query($id: ID!) { project(id: $id) { name sessions(first: 100) { totalCount } ticketTypes(first: 10) { edges { node { name available } } } } }`,
    {
      variables: { id: projectId },
    },
  );
  out.push(publicRead.body.data);
  return out;
}

/**
 * A SQLite file in a new folder holding the seeded demo, closed again so a copy can read it; `raw`
 * opens it without the app, to plant rows the app would never write.
 */
async function seededSource(prefix: string, seed: number) {
  const dir = temporaryFolder(prefix);
  const path = join(dir, "source.sqlite");
  const sourceUrl = `sqlite:${path}`;
  const database = openDatabase(sourceUrl);
  await migrateToLatest(database.db);
  const services = createServices(database, loadConfig({ DATABASE_URL: sourceUrl }), createLogger("silent"));
  const demo = await services.demo.seed({ scale: 1, seed });
  await database.close();
  return { dir, sourceUrl, demo, raw: () => new SQLite(path) };
}

async function answersOfServerOn(url: string, token: string, projectId: string): Promise<unknown[]> {
  const engine = url.startsWith("sqlite:") ? "sqlite" : "postgres";
  const server = await startTestServer(
    { name: engine, newDatabaseUrl: () => url },
    {
      RATE_LIMIT_APP_POINTS_PER_HOUR: "100000000",
    },
  );
  try {
    return await answers(server.url, token, projectId);
  } finally {
    await server.close();
  }
}

const cli = (args: string[]) => runCliInProcess(["copy-data", ...args], {});

describe("eventgraph copy-data", () => {
  test("garbage, missing and identical databases exit 1 with one line and touch nothing", async () => {
    const dir = temporaryFolder("eventgraph-copy-garbage-");
    const missing = `sqlite:${join(dir, "missing.sqlite")}`;
    const cases: [string, string, RegExp][] = [
      ["nonsense", `sqlite:${join(dir, "t.sqlite")}`, /--from must be sqlite:<path> or postgres:\/\//],
      [missing, "mysql://x", /--to must be/],
      [missing, `sqlite:${join(dir, "t.sqlite")}`, /There is no database at/],
      [
        "postgres://user:secret@127.0.0.1:1/x",
        `sqlite:${join(dir, "t.sqlite")}`,
        /Cannot open the database at postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/x/,
      ],
      [missing, missing, /the same database/],
    ];
    for (const [from, to, message] of cases) {
      const run = await cli(["--from", from, "--to", to]);
      assert.equal(run.code, 1, `${from} -> ${to}: ${run.stderr}`);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, stackLine);
      assert.doesNotMatch(run.stderr, /secret/);
      assert.equal(run.stdout, "");
    }
    // Nothing was created for a copy that could not start.
    assert.equal((await cli(["--from", missing, "--to", `sqlite:${join(dir, "t.sqlite")}`])).code, 1);
    assert.throws(() => new SQLite(join(dir, "t.sqlite"), { fileMustExist: true }));
    const usage = await cli(["--from", missing]);
    assert.equal(usage.code, 2);
  });

  const skip = postgresMissing();
  test("a value PostgreSQL refuses stops the copy with one line naming the table, and the target stays empty", {
    skip,
  }, async () => {
    const { sourceUrl, demo, raw: openRaw } = await seededSource("eventgraph-copy-bad-", 3);
    // SQLite keeps text in an INTEGER column; PostgreSQL's integer column refuses it.
    const raw = openRaw();
    raw.prepare("update rooms set capacity = 'lots' where project_id = ?").run(demo.project.id);
    raw.close();
    const target = await throwawayPostgresDatabase(String(process.env.DATABASE_URL_POSTGRES), "copy_bad");
    try {
      const failed = await cli(["--from", sourceUrl, "--to", target.url]);
      assert.equal(failed.code, 1);
      const lines = failed.stderr.trim().split("\n");
      assert.match(lines.at(-1) ?? "", /^error: Cannot copy rooms: .*integer.*; the target is unchanged$/);
      assert.doesNotMatch(failed.stderr, stackLine);
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        for (const table of ["projects", "users", "attendees", "rooms"]) {
          const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${table}`);
          assert.equal(rows[0]?.n, "0", table);
        }
      } finally {
        await client.end();
      }
    } finally {
      await target.drop();
    }
  });

  test("moves the seeded demo from SQLite to PostgreSQL and back: a server on either target answers the same reads, ids, timestamps, versions and sequences kept; a target with data needs --force", {
    skip,
  }, async () => {
    const { dir, sourceUrl, demo, raw: openRaw } = await seededSource("eventgraph-copy-", 7);
    // A webhook delivery numbered by the sequence, so the copy must move PostgreSQL's past it.
    const raw = openRaw();
    const appId = raw.prepare("select id from apps limit 1").pluck().get() as string;
    raw
      .prepare(
        `insert into webhook_deliveries (seq, id, app_id, project_id, event_type, object_typename, object_id, changed, payload, status, next_attempt_at, created_at)
         values (41, 'd-1', ?, ?, 'attendee.created', 'Attendee', 'a', '[]', '{}', 'DELIVERED', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
      )
      .run(appId, demo.project.id);
    raw.close();

    const expected = await answersOfServerOn(sourceUrl, demo.token, demo.project.id);

    const target = await throwawayPostgresDatabase(String(process.env.DATABASE_URL_POSTGRES), "copy");
    try {
      const copied = await cli(["--from", sourceUrl, "--to", target.url, "--json"]);
      assert.equal(copied.code, 0, copied.stderr);
      const report = onlyJson(copied.stdout) as {
        tables: { table: string; rows: number; checksum: string }[];
      };
      const attendees = report.tables.find((t) => t.table === "attendees");
      assert.ok(attendees && attendees.rows > 1000, JSON.stringify(attendees));
      assert.match(copied.stderr, /verified attendees: \d+ rows/);

      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        const next = await client.query<{ seq: string }>(
          "select nextval('webhook_deliveries_seq_seq') as seq",
        );
        assert.equal(next.rows[0]?.seq, "42");
        // The triggers are back on: a plain-SQL write moves the access version again.
        const before = await client.query<{ v: number }>(
          "select project_version as v from project_versions where project_id = $1",
          [demo.project.id],
        );
        await client.query("update projects set status = 'ARCHIVED' where id = $1", [demo.project.id]);
        const after = await client.query<{ v: number }>(
          "select project_version as v from project_versions where project_id = $1",
          [demo.project.id],
        );
        assert.equal(Number(after.rows[0]?.v), Number(before.rows[0]?.v) + 1);
        await client.query("update projects set status = 'PUBLISHED' where id = $1", [demo.project.id]);
      } finally {
        await client.end();
      }

      // A second copy onto a target that now holds data is refused, and the target is unchanged.
      const refused = await cli(["--from", sourceUrl, "--to", target.url]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /holds data .*--force/);
      assert.equal(refused.stderr.trim().split("\n").length, 1);
      const forced = await cli(["--from", sourceUrl, "--to", target.url, "--force", "--json"]);
      assert.equal(forced.code, 0, forced.stderr);
      // Same rows, same checksums, whichever engine holds them.
      assert.deepEqual(onlyJson(forced.stdout).tables, report.tables);

      // And back, before a server uses either copy (its reads record the app's use): PostgreSQL
      // to a new SQLite file.
      const backUrl = `sqlite:${join(dir, "back", "back.sqlite")}`;
      const back = await cli(["--from", target.url, "--to", backUrl, "--json"]);
      assert.equal(back.code, 0, back.stderr);
      assert.deepEqual(onlyJson(back.stdout).tables, report.tables);

      const onPostgres = await answersOfServerOn(target.url, demo.token, demo.project.id);
      assert.deepEqual(onPostgres, expected);
      const onSqlite = await answersOfServerOn(backUrl, demo.token, demo.project.id);
      assert.deepEqual(onSqlite, expected);
    } finally {
      await target.drop();
    }
  });
});
