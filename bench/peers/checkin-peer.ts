import Database from "better-sqlite3";
import pg from "pg";
import { v7 } from "uuid";
import { serveMercurius } from "./serve-mercurius.js";

/**
 * The write peer of the benchmark: the check-in scenario's two mutations (`checkInAttendee`,
 * `undoCheckIn`) answered by Fastify + Mercurius (graphql-jit) + better-sqlite3, running the very
 * statements Eventgraph runs for each (locate the attendee; BEGIN IMMEDIATE; read the project's
 * webhook subscribers; read the attendee; insert or undo the check-in, RETURNING it; the audit entry;
 * the check-in area's version; COMMIT), prepared once, one synchronous transaction per request. It
 * has no token, permissions, rate limit, cost analysis, response cache or webhook queue: it is what
 * the writes themselves cost through the best-known parts, so Eventgraph's check-in has a figure to
 * compare with, as its reads have the Mercurius reader (graphql-peer.ts).
 *
 * On PostgreSQL (a `postgres://` URL) it sends the same statements through a pg pool of
 * Eventgraph's default size, prepared by name, one round trip each, as an app built on pg would.
 *
 * It writes, so it runs on a copy of the bench's database (not the one Eventgraph serves).
 * Usage: node dist/bench/peers/checkin-peer.js <sqlite:file | postgres://…>; prints {"port": n} once listening.
 */

const [, , target] = process.argv;
if (!target) {
  process.stderr.write("usage: checkin-peer <sqlite:file | postgres://…>\n");
  process.exit(2);
}

interface Located {
  id: string;
  project_id: string;
}
interface AttendeeRow extends Located {
  name: string;
  email: string;
  company: string | null;
  ticket_type_id: string;
  status: string;
}
interface CheckInRow {
  id: string;
  checked_in_at: string;
  undone_at: string | null;
}
type Payload = { checkIn: CheckInRow | null; userErrors: { message: string }[] };
type App = { id: string; name: string };

// Eventgraph's statements (its statement log), with `?` for each parameter.
const checkInColumns = `"id", "project_id", "attendee_id", "checked_in_at", "by_user_id", "by_app_id", "undone_at"`;
const subscribers = (table: string, join: string, where: string) =>
  `select "w"."app_id", "w"."events", "a"."permissions" as "app_permissions", ${table} as "link_permissions"
   from "webhook_endpoints" as "w" inner join "apps" as "a" on "a"."id" = "w"."app_id" ${join} where ${where}`;
const text = {
  locate: `select "id", "project_id" from "attendees" where "id" = ?`,
  subscribers: `${subscribers("null", "", `"a"."project_id" = ?`)} union all ${subscribers(
    `"l"."permissions"`,
    `inner join "app_links" as "l" on "l"."app_id" = "w"."app_id"`,
    `"l"."project_id" = ? and "l"."revoked_at" is null`,
  )}`,
  attendee: `select "id", "project_id", "ticket_type_id", "name", "email", "email_normalized", "company", "status",
     "registered_at", "cancelled_at", "updated_at", "ticket_code" from "attendees" where "project_id" = ? and "id" = ?`,
  checkIn: `insert into "check_ins" ("id", "project_id", "attendee_id", "checked_in_at", "by_user_id", "by_app_id")
     select ? as "id", "project_id", "id" as "attendee_id", ? as "checked_in_at", ? as "by_user_id", ? as "by_app_id"
     from "attendees" where "project_id" = ? and "id" = ? and "status" <> 'CANCELLED'
     on conflict ("attendee_id") where "undone_at" is null do nothing returning ${checkInColumns}`,
  undo: `update "check_ins" set "undone_at" = ? where "project_id" = ? and "attendee_id" = ? and "undone_at" is null
     returning ${checkInColumns}`,
  // A repeated check-in answers with the one already there, as Eventgraph's does.
  current: `select ${checkInColumns} from "check_ins" where "project_id" = ? and "attendee_id" = ? and "undone_at" is null`,
  audit: `insert into "audit_events" ("id", "project_id", "occurred_at", "actor_kind", "actor_id", "actor_label",
     "link_id", "via", "ip", "action", "object_type", "object_id", "changes") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  bump: `update "project_versions" set "checkins_version" = "checkins_version" + 1 where "project_id" = ?`,
  // The bench's app (the newest, the only one with checkins:write): the actor of every entry.
  app: `select "id", "name" from "apps" order by "created_at" desc limit 1`,
};
type Name = keyof typeof text | "begin" | "commit" | "rollback";

/** One statement of a check-in: its name and parameters; the driver sends back its rows. */
type Step = [Name, unknown[]];

/**
 * A check-in or an undo as the statements Eventgraph runs, in its order, in one transaction. A
 * generator, so that one sequence serves both drivers: SQLite's runs each step synchronously (a
 * whole check-in in one turn of the event loop), PostgreSQL's a round trip per step.
 */
function* checkInSteps(
  app: App,
  globalId: string,
  undo: boolean,
  ip: string,
): Generator<Step, Payload, unknown[]> {
  const id = Buffer.from(globalId, "base64url").toString("utf8").split(":")[1] ?? "";
  const [located] = (yield ["locate", [id]]) as Located[];
  if (!located) return { checkIn: null, userErrors: [{ message: "attendee not found" }] };
  const projectId = located.project_id;
  yield ["begin", []];
  yield ["subscribers", [projectId, projectId]];
  const [attendee] = (yield ["attendee", [projectId, id]]) as AttendeeRow[];
  const now = new Date().toISOString();
  const [row] = (yield undo
    ? ["undo", [now, projectId, id]]
    : ["checkIn", [v7(), now, null, app.id, projectId, id]]) as CheckInRow[];
  if (row && attendee) {
    const { name, email, company, ticket_type_id: ticketTypeId, status } = attendee;
    const changes = JSON.stringify({ name, email, company, ticketTypeId, status });
    const action = undo ? "checkin.undone" : "checkin.created";
    yield [
      "audit",
      [v7(), projectId, now, "app", app.id, app.name, null, "api", ip, action, "Attendee", id, changes],
    ];
    yield ["bump", [projectId]];
  }
  const [current] = row || undo ? [row] : ((yield ["current", [projectId, id]]) as CheckInRow[]);
  yield ["commit", []];
  return { checkIn: current ?? null, userErrors: [] };
}

/** Drives the steps of one request; rolls back when a step fails inside the transaction. */
interface Driver {
  app: App;
  drive(steps: Generator<Step, Payload, unknown[]>): Payload | Promise<Payload>;
}

// better-sqlite3 on a file, with the pragmas of Eventgraph's writing connection (src/db/database.ts).
function sqliteDriver(file: string): Driver {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("cache_size = -16384");
  const statements = new Map<Name, Database.Statement>([
    ["begin", db.prepare("begin immediate")],
    ["commit", db.prepare("commit")],
    ["rollback", db.prepare("rollback")],
  ]);
  for (const [name, sql] of Object.entries(text)) statements.set(name as Name, db.prepare(sql));
  const run = (name: Name, parameters: unknown[]): unknown[] => {
    const statement = statements.get(name) as Database.Statement;
    if (statement.reader) return statement.all(...parameters);
    statement.run(...parameters);
    return [];
  };
  const app = run("app", [])[0] as App | undefined;
  if (!app) throw new Error("no app in the database");
  return {
    app,
    drive(steps) {
      let step = steps.next();
      try {
        while (!step.done) step = steps.next(run(...step.value));
        return step.value;
      } catch (error) {
        if (db.inTransaction) run("rollback", []);
        throw error;
      }
    },
  };
}

// A pg pool of Eventgraph's default size; each statement prepared by name on each connection.
async function postgresDriver(url: string): Promise<Driver> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  // PostgreSQL locks the attendee's row (SQLite's transaction holds the database's write lock).
  const queries = new Map<Name, pg.QueryConfig>(
    Object.entries(text).map(([name, sql]) => [
      name as Name,
      { name: `peer_${name}`, text: numbered(name === "attendee" ? `${sql} for update` : sql) },
    ]),
  );
  for (const control of ["begin", "commit", "rollback"] as const) queries.set(control, { text: control });
  const app = (await pool.query<App>(queries.get("app") as pg.QueryConfig)).rows[0];
  if (!app) throw new Error("no app in the database");
  return {
    app,
    async drive(steps) {
      const client = await pool.connect();
      let open = false;
      // A connection that cannot even roll back is dropped, not handed to the next request.
      let broken = false;
      try {
        let step = steps.next();
        while (!step.done) {
          const [name, values] = step.value;
          const { rows } = await client.query({ ...(queries.get(name) as pg.QueryConfig), values });
          open = (open || name === "begin") && name !== "commit";
          step = steps.next(rows);
        }
        return step.value;
      } catch (error) {
        if (open)
          await client.query("rollback").catch(() => {
            broken = true;
          });
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

const driver = target.startsWith("postgres")
  ? await postgresDriver(target)
  : sqliteDriver(target.replace(/^sqlite:/, ""));

const schema = `
  type Query { ok: Boolean }
  input CheckInAttendeeInput { attendeeId: ID! }
  type CheckIn { checkedInAt: String! undoneAt: String }
  type UserError { message: String! }
  type CheckInPayload { checkIn: CheckIn userErrors: [UserError!]! }
  type Mutation {
    checkInAttendee(input: CheckInAttendeeInput!): CheckInPayload!
    undoCheckIn(input: CheckInAttendeeInput!): CheckInPayload!
  }
`;
type Args = { input: { attendeeId: string } };
type Context = { reply: { request: { ip: string } } };
const resolvers = {
  Mutation: {
    checkInAttendee: (_: unknown, { input }: Args, c: Context) =>
      driver.drive(checkInSteps(driver.app, input.attendeeId, false, c.reply.request.ip)),
    undoCheckIn: (_: unknown, { input }: Args, c: Context) =>
      driver.drive(checkInSteps(driver.app, input.attendeeId, true, c.reply.request.ip)),
  },
  CheckIn: {
    checkedInAt: (row: CheckInRow) => row.checked_in_at,
    undoneAt: (row: CheckInRow) => row.undone_at,
  },
};

await serveMercurius(schema, resolvers);
