import Database from "better-sqlite3";
import DataLoader from "dataloader";
import { serveMercurius } from "./serve-mercurius.js";

/**
 * A peer of the benchmark: the same three read queries answered by the best-known parts assembled
 * by hand (Fastify + Mercurius with graphql-jit + DataLoader + better-sqlite3 prepared statements
 * that select only the columns the queries ask for), over the very SQLite file Eventgraph serves.
 * It has no permissions, rate limit, cost analysis or response cache: it is what "building the
 * answer" costs, so Eventgraph's miss path has a figure to beat. With `--memory` it reads every row
 * into maps at start and answers without touching the database (the cost of GraphQL execution alone).
 *
 * The bench checks that its `data` is byte-identical to Eventgraph's for every scenario.
 * Usage: node dist/bench/peers/graphql-peer.js <file.sqlite> [--memory]; prints {"port": n}.
 */

const [, , file, mode] = process.argv;
if (!file) {
  process.stderr.write("usage: graphql-peer <file.sqlite> [--memory]\n");
  process.exit(2);
}
const fromMemory = mode === "--memory";
const db = new Database(file, { readonly: true });
db.pragma("cache_size = -65536");

const schema = `
  type Query { project(id: ID!): Project }
  type Project {
    name: String!
    sessions(first: Int, after: String): SessionConnection!
    attendees(first: Int, after: String, status: AttendeeStatus): AttendeeConnection!
  }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type SessionConnection { edges: [SessionEdge!]! pageInfo: PageInfo! }
  type SessionEdge { node: Session! cursor: String! }
  type Session { id: ID! title: String! startsAt: String! endsAt: String! room: Room track: Track speakers: [Speaker!]! }
  type Room { name: String! }
  type Track { name: String! }
  type Speaker { name: String! company: String }
  enum AttendeeStatus { REGISTERED CANCELLED }
  type AttendeeConnection { edges: [AttendeeEdge!]! pageInfo: PageInfo! }
  type AttendeeEdge { node: Attendee! cursor: String! }
  type Attendee { id: ID! name: String! email: String! company: String status: AttendeeStatus! ticketType: TicketType! checkIn: CheckIn }
  type TicketType { name: String! }
  type CheckIn { checkedInAt: String! }
`;

interface SessionRow {
  id: string;
  title: string;
  starts_at: string;
  ends_at: string;
  room_id: string | null;
  track_id: string | null;
}
interface AttendeeRow {
  id: string;
  name: string;
  email: string;
  company: string | null;
  status: string;
  ticket_type_id: string;
  registered_at: string;
}
type Named = { id: string; name: string };
type SpeakerOf = { session_id: string; name: string; company: string | null };
type CheckInOf = { attendee_id: string; checked_in_at: string };

// Map.groupBy arrived after Node 20.
function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

// Eventgraph's encodings: opaque base64url global ids and keyset cursors.
const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64url");
const cursorOf = (sort: string, id: string) => Buffer.from(JSON.stringify([sort, id])).toString("base64url");
const decodeCursor = (cursor: string | undefined | null): [string, string] =>
  cursor ? (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string]) : ["", ""];

// A list of ids as one JSON parameter: one prepared statement serves every batch size.
const inIds = "(select value from json_each(?))";
const sql = {
  project: db.prepare<[string], { name: string }>("select name from projects where id = ?"),
  sessions: db.prepare<[string, string, string, number], SessionRow>(
    `select id, title, starts_at, ends_at, room_id, track_id from sessions
     where project_id = ? and status = 'PUBLISHED' and (starts_at, id) > (?, ?)
     order by starts_at, id limit ?`,
  ),
  attendees: db.prepare<[string, string, string, string, string, number], AttendeeRow>(
    `select id, name, email, company, status, ticket_type_id, registered_at from attendees
     where project_id = ? and (? = '' or status = ?) and (registered_at, id) > (?, ?)
     order by registered_at, id limit ?`,
  ),
  rooms: db.prepare<[string], Named>(`select id, name from rooms where id in ${inIds}`),
  tracks: db.prepare<[string], Named>(`select id, name from tracks where id in ${inIds}`),
  ticketTypes: db.prepare<[string], Named>(`select id, name from ticket_types where id in ${inIds}`),
  speakers: db.prepare<[string], SpeakerOf>(
    `select ss.session_id, s.name, s.company from session_speakers ss join speakers s on s.id = ss.speaker_id
     where ss.session_id in ${inIds} order by ss.session_id, ss.position`,
  ),
  checkIns: db.prepare<[string], CheckInOf>(
    `select attendee_id, checked_in_at from check_ins where attendee_id in ${inIds} and undone_at is null`,
  ),
};

/** The data source: SQLite statements, or maps filled once at start (`--memory`). */
interface Source {
  projectName(id: string): string | undefined;
  sessions(projectId: string, after: [string, string], limit: number): SessionRow[];
  attendees(projectId: string, status: string, after: [string, string], limit: number): AttendeeRow[];
  rooms(ids: readonly string[]): Named[];
  tracks(ids: readonly string[]): Named[];
  ticketTypes(ids: readonly string[]): Named[];
  speakers(ids: readonly string[]): SpeakerOf[];
  checkIns(ids: readonly string[]): CheckInOf[];
}

const sqliteSource: Source = {
  projectName: (id) => sql.project.get(id)?.name,
  sessions: (projectId, [sort, id], limit) => sql.sessions.all(projectId, sort, id, limit),
  attendees: (projectId, status, [sort, id], limit) =>
    sql.attendees.all(projectId, status, status, sort, id, limit),
  rooms: (ids) => sql.rooms.all(JSON.stringify(ids)),
  tracks: (ids) => sql.tracks.all(JSON.stringify(ids)),
  ticketTypes: (ids) => sql.ticketTypes.all(JSON.stringify(ids)),
  speakers: (ids) => sql.speakers.all(JSON.stringify(ids)),
  checkIns: (ids) => sql.checkIns.all(JSON.stringify(ids)),
};

/** Up to `limit` rows of `rows` (sorted by `keyOf`) after `cursor` that pass `keep`. */
function page<T>(
  rows: T[],
  keyOf: (row: T) => [string, string],
  [sort, id]: [string, string],
  keep: (row: T) => boolean,
  limit: number,
): T[] {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const [s, i] = keyOf(rows[middle] as T);
    if (s > sort || (s === sort && i > id)) high = middle;
    else low = middle + 1;
  }
  const found: T[] = [];
  for (let n = low; n < rows.length && found.length < limit; n++) {
    const row = rows[n] as T;
    if (keep(row)) found.push(row);
  }
  return found;
}

function memorySource(): Source {
  const all = <T>(text: string) => db.prepare<[], T>(text).all();
  const projects = new Map(all<Named>("select id, name from projects").map((p) => [p.id, p.name]));
  const sessions = all<SessionRow & { project_id: string }>(
    "select project_id, id, title, starts_at, ends_at, room_id, track_id from sessions where status = 'PUBLISHED' order by starts_at, id",
  );
  const attendees = all<AttendeeRow & { project_id: string }>(
    "select project_id, id, name, email, company, status, ticket_type_id, registered_at from attendees order by registered_at, id",
  );
  const byId = (rows: Named[]) => new Map(rows.map((r) => [r.id, r]));
  const rooms = byId(all<Named>("select id, name from rooms"));
  const tracks = byId(all<Named>("select id, name from tracks"));
  const ticketTypes = byId(all<Named>("select id, name from ticket_types"));
  const speakers = groupBy(
    all<SpeakerOf>(
      "select ss.session_id, s.name, s.company from session_speakers ss join speakers s on s.id = ss.speaker_id order by ss.session_id, ss.position",
    ),
    (s) => s.session_id,
  );
  const checkIns = new Map(
    all<CheckInOf>("select attendee_id, checked_in_at from check_ins where undone_at is null").map((c) => [
      c.attendee_id,
      c,
    ]),
  );
  // Rows per project in (sort, id) order, and a binary search for the first one past the cursor:
  // filtering every row per request made this peer's ×100 attendee page cost 40 ms (200,000 rows).
  const sessionsOf = groupBy(sessions, (s) => s.project_id);
  const attendeesOf = groupBy(attendees, (a) => a.project_id);
  const pick = <T>(map: Map<string, T>, ids: readonly string[]) =>
    ids.flatMap((id) => {
      const row = map.get(id);
      return row ? [row] : [];
    });
  return {
    projectName: (id) => projects.get(id),
    sessions: (projectId, cursor, limit) =>
      page(
        sessionsOf.get(projectId) ?? [],
        (s) => [s.starts_at, s.id],
        cursor,
        () => true,
        limit,
      ),
    attendees: (projectId, status, cursor, limit) =>
      page(
        attendeesOf.get(projectId) ?? [],
        (a) => [a.registered_at, a.id],
        cursor,
        (a) => status === "" || a.status === status,
        limit,
      ),
    rooms: (ids) => pick(rooms, ids),
    tracks: (ids) => pick(tracks, ids),
    ticketTypes: (ids) => pick(ticketTypes, ids),
    speakers: (ids) => ids.flatMap((id) => speakers.get(id) ?? []),
    checkIns: (ids) => pick(checkIns, ids),
  };
}

const source = fromMemory ? memorySource() : sqliteSource;

// DataLoaders per request, batching by id like Eventgraph's loaders do.
function loaders() {
  const one = (load: (ids: readonly string[]) => Named[]) =>
    new DataLoader<string, Named | null>(async (ids) => {
      const found = new Map(load(ids).map((r) => [r.id, r]));
      return ids.map((id) => found.get(id) ?? null);
    });
  return {
    room: one(source.rooms),
    track: one(source.tracks),
    ticketType: one(source.ticketTypes),
    speakers: new DataLoader<string, SpeakerOf[]>(async (ids) => {
      const grouped = groupBy(source.speakers(ids), (s) => s.session_id);
      return ids.map((id) => grouped.get(id) ?? []);
    }),
    checkIn: new DataLoader<string, CheckInOf | null>(async (ids) => {
      const found = new Map(source.checkIns(ids).map((c) => [c.attendee_id, c]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
type Context = { loaders: ReturnType<typeof loaders> };
type PageArgs = { first?: number | null; after?: string | null; status?: string | null };

function connection<T>(rows: T[], limit: number, keyOf: (row: T) => [string, string]) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    edges: items.map((node) => ({ node, cursor: cursorOf(...keyOf(node)) })),
    pageInfo: { hasNextPage: rows.length > limit, endCursor: last ? cursorOf(...keyOf(last)) : null },
  };
}

const resolvers = {
  Query: {
    project: (_: unknown, { id }: { id: string }) => {
      const name = source.projectName(id);
      return name === undefined ? null : { id, name };
    },
  },
  Project: {
    sessions: (p: { id: string }, { first, after }: PageArgs) => {
      const limit = first ?? 20;
      return connection(source.sessions(p.id, decodeCursor(after), limit + 1), limit, (s) => [
        s.starts_at,
        s.id,
      ]);
    },
    attendees: (p: { id: string }, { first, after, status }: PageArgs) => {
      const limit = first ?? 20;
      const rows = source.attendees(p.id, status ?? "", decodeCursor(after), limit + 1);
      return connection(rows, limit, (a) => [a.registered_at, a.id]);
    },
  },
  Session: {
    id: (s: SessionRow) => globalId("Session", s.id),
    startsAt: (s: SessionRow) => s.starts_at,
    endsAt: (s: SessionRow) => s.ends_at,
    room: (s: SessionRow, _: unknown, c: Context) => (s.room_id ? c.loaders.room.load(s.room_id) : null),
    track: (s: SessionRow, _: unknown, c: Context) => (s.track_id ? c.loaders.track.load(s.track_id) : null),
    speakers: (s: SessionRow, _: unknown, c: Context) => c.loaders.speakers.load(s.id),
  },
  Attendee: {
    id: (a: AttendeeRow) => globalId("Attendee", a.id),
    ticketType: (a: AttendeeRow, _: unknown, c: Context) => c.loaders.ticketType.load(a.ticket_type_id),
    checkIn: async (a: AttendeeRow, _: unknown, c: Context) => {
      const row = await c.loaders.checkIn.load(a.id);
      return row ? { checkedInAt: row.checked_in_at } : null;
    },
  },
};

// The resolvers' context is the one built here, per request.
await serveMercurius(schema, resolvers, () => ({ loaders: loaders() }));
