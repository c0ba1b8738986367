import Database from "better-sqlite3";
import Fastify from "fastify";
import mercurius, { type IResolvers } from "mercurius";
import { v7 } from "uuid";

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
 * It writes, so it runs on a copy of the bench's SQLite file (not the one Eventgraph serves).
 * Usage: node dist/bench/peers/checkin-peer.js <file.sqlite>; prints {"port": n} once listening.
 */

const [, , file] = process.argv;
if (!file) {
  process.stderr.write("usage: checkin-peer <file.sqlite>\n");
  process.exit(2);
}
// The pragmas Eventgraph's writing connection uses (src/db/database.ts).
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("foreign_keys = ON");
db.pragma("cache_size = -16384");

interface Located {
  id: string;
  project_id: string;
}
interface AttendeeRow extends Located {
  name: string;
  email: string;
  ticket_type_id: string;
  status: string;
}
interface CheckInRow {
  id: string;
  checked_in_at: string;
  undone_at: string | null;
}

const checkInColumns = `"id", "project_id", "attendee_id", "checked_in_at", "by_user_id", "by_app_id", "undone_at"`;
const subscribers = (table: string, join: string, where: string) =>
  `select "w"."app_id", "w"."events", "a"."permissions" as "app_permissions", ${table} as "link_permissions"
   from "webhook_endpoints" as "w" inner join "apps" as "a" on "a"."id" = "w"."app_id" ${join} where ${where}`;
const sql = {
  locate: db.prepare<[string], Located>(`select "id", "project_id" from "attendees" where "id" = ?`),
  begin: db.prepare("begin immediate"),
  commit: db.prepare("commit"),
  rollback: db.prepare("rollback"),
  subscribers: db.prepare<[string, string]>(
    `${subscribers("null", "", `"a"."project_id" = ?`)} union all ${subscribers(
      `"l"."permissions"`,
      `inner join "app_links" as "l" on "l"."app_id" = "w"."app_id"`,
      `"l"."project_id" = ? and "l"."revoked_at" is null`,
    )}`,
  ),
  attendee: db.prepare<[string, string], AttendeeRow>(
    `select "id", "project_id", "ticket_type_id", "name", "email", "email_normalized", "company", "status",
     "registered_at", "cancelled_at", "updated_at", "ticket_code" from "attendees" where "project_id" = ? and "id" = ?`,
  ),
  checkIn: db.prepare<[string, string, null, string, string, string], CheckInRow>(
    `insert into "check_ins" ("id", "project_id", "attendee_id", "checked_in_at", "by_user_id", "by_app_id")
     select ? as "id", "project_id", "id" as "attendee_id", ? as "checked_in_at", ? as "by_user_id", ? as "by_app_id"
     from "attendees" where "project_id" = ? and "id" = ? and "status" <> 'CANCELLED'
     on conflict ("attendee_id") where "undone_at" is null do nothing returning ${checkInColumns}`,
  ),
  undo: db.prepare<[string, string, string], CheckInRow>(
    `update "check_ins" set "undone_at" = ? where "project_id" = ? and "attendee_id" = ? and "undone_at" is null
     returning ${checkInColumns}`,
  ),
  audit: db.prepare(
    `insert into "audit_events" ("id", "project_id", "occurred_at", "actor_kind", "actor_id", "actor_label",
     "link_id", "via", "ip", "action", "object_type", "object_id", "changes") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  // A repeated check-in answers with the one already there, as Eventgraph's does.
  current: db.prepare<[string, string], CheckInRow>(
    `select ${checkInColumns} from "check_ins" where "project_id" = ? and "attendee_id" = ? and "undone_at" is null`,
  ),
  bump: db.prepare(
    `update "project_versions" set "checkins_version" = "checkins_version" + 1 where "project_id" = ?`,
  ),
};
// The bench's app (the only one of the demo with checkins:write): the actor of every entry.
const newestApp = db.prepare<[], { id: string; name: string }>(
  "select id, name from apps order by created_at desc",
);
const app = newestApp.get() ?? { id: "", name: "" };
if (!app.id) throw new Error("no app in the database");

type Payload = { checkIn: CheckInRow | null; userErrors: { message: string }[] };

function write(globalId: string, undo: boolean, ip: string): Payload {
  const id = Buffer.from(globalId, "base64url").toString("utf8").split(":")[1] ?? "";
  const located = sql.locate.get(id);
  if (!located) return { checkIn: null, userErrors: [{ message: "attendee not found" }] };
  const projectId = located.project_id;
  sql.begin.run();
  try {
    sql.subscribers.all(projectId, projectId);
    const attendee = sql.attendee.get(projectId, id);
    const now = new Date().toISOString();
    const row = undo
      ? sql.undo.get(now, projectId, id)
      : sql.checkIn.get(v7(), now, null, app.id, projectId, id);
    if (row && attendee) {
      const { name, email, ticket_type_id: ticketTypeId, status } = attendee;
      const changes = JSON.stringify({ name, email, ticketTypeId, status });
      const action = undo ? "checkin.undone" : "checkin.created";
      sql.audit.run(
        v7(),
        projectId,
        now,
        "app",
        app.id,
        app.name,
        null,
        "api",
        ip,
        action,
        "Attendee",
        id,
        changes,
      );
      sql.bump.run(projectId);
    }
    sql.commit.run();
    return { checkIn: row ?? (undo ? null : (sql.current.get(projectId, id) ?? null)), userErrors: [] };
  } catch (error) {
    sql.rollback.run();
    throw error;
  }
}

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
      write(input.attendeeId, false, c.reply.request.ip),
    undoCheckIn: (_: unknown, { input }: Args, c: Context) =>
      write(input.attendeeId, true, c.reply.request.ip),
  },
  CheckIn: {
    checkedInAt: (row: CheckInRow) => row.checked_in_at,
    undoneAt: (row: CheckInRow) => row.undone_at,
  },
};

const server = Fastify({ logger: false });
await server.register(mercurius, {
  schema,
  resolvers: resolvers as unknown as IResolvers,
  path: "/api/graphql",
  jit: 1,
});
const address = await server.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
