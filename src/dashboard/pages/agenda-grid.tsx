import type { FastifyInstance } from "fastify";
import type { Conflict, Room, Session, Speaker, Track } from "../../modules/agenda/agenda.service.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { pageContext } from "../context.js";
import type { FormRequest } from "../form-route.js";
import { formatDay, formatTime } from "../time.js";
import { EmptyState } from "../ui/components.js";
import { Options } from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

// Rows of the grid: five minutes each, so sessions starting at :05 or :50 sit where they start.
const slotMs = 5 * 60_000;

/**
 * Sessions the grid shows at most (one day, after the filters): a table of 3,000 sessions was
 * megabytes of HTML and held the event loop for seconds; a real day has a few hundred at most.
 */
const maxGridSessions = 300;

/** One column of the grid: a room (or "No room"), split into lanes only where sessions overlap. */
interface Column {
  id: string;
  name: string;
  lanes: Session[][];
}

/** Sessions into lanes: each goes into the first lane free at its start (a clash opens a second lane). */
function intoLanes(sessions: Session[]): Session[][] {
  const lanes: Session[][] = [];
  for (const session of sessions) {
    const lane = lanes.find((l) => (l.at(-1)?.endsAt ?? "") <= session.startsAt);
    if (lane) lane.push(session);
    else lanes.push([session]);
  }
  return lanes;
}

/**
 * Rooms (columns) one page of the grid shows; "Next rooms" pages through the rest. A programme of
 * 286 rooms and 6,000 sessions was read and checked whole for every view (0.9 s of event loop on
 * SQLite); a page now reads one day of ten rooms and its speakers' other sessions.
 */
const roomsPerPage = 10;

/** `GET /b/:projectId/agenda/grid`: a day's sessions as rooms × time, ten rooms a page, with filters and conflicts. */
export function registerAgendaGridPage(app: FastifyInstance): void {
  const { services } = app;
  app.get("/b/:projectId/agenda/grid", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const query = request.query as Record<string, string | undefined>;
    const window = listWindow();
    const [rooms, tracks] = await Promise.all([
      services.agenda.listRooms(data.access, window),
      services.agenda.listTracks(data.access, window),
    ]);
    // One room asked for, or a page of them with the sessions without a room after the last.
    const roomPage = query.room
      ? { items: rooms.items.filter((r) => r.id === query.room), hasNextPage: false, endCursor: null }
      : await services.agenda.listRooms(
          data.access,
          resolvePageArgs({ first: roomsPerPage, after: query.after || null }),
        );
    const noRoom = !query.room && !roomPage.hasNextPage;
    const roomNames = new Map([...rooms.items, ...roomPage.items].map((r) => [r.id, r.name]));
    const agenda = await services.agenda.loadAgendaDay(
      data.access,
      data.project,
      { day: query.day, roomIds: roomPage.items.map((r) => r.id), noRoom },
      roomNames,
    );
    return sendPage(
      reply,
      <AgendaGridPage
        ctx={pageContext(request, reply)}
        data={data}
        rooms={rooms.items}
        tracks={tracks.items}
        columnRooms={roomPage.items}
        noRoomColumn={noRoom}
        pages={{
          next: roomPage.hasNextPage ? roomPage.endCursor : null,
          isFirst: !query.after || Boolean(query.room),
        }}
        days={agenda.days}
        day={agenda.day}
        sessions={agenda.sessions}
        speakersBySession={agenda.speakersBySession}
        conflicts={agenda.conflicts}
        filter={{ track: query.track, room: query.room }}
      />,
    );
  });
}

function AgendaGridPage(props: {
  ctx: ReturnType<typeof pageContext>;
  data: ProjectPageData;
  rooms: Room[];
  tracks: Track[];
  /** The rooms of this page's columns. */
  columnRooms: Room[];
  noRoomColumn: boolean;
  /** The cursor of the next page of rooms, if any; whether this is the first. */
  pages: { next: string | null; isFirst: boolean };
  days: string[];
  day: string | undefined;
  /** The day's sessions in this page's rooms. */
  sessions: Session[];
  speakersBySession: Map<string, Speaker[]>;
  conflicts: Conflict[];
  filter: { track?: string | undefined; room?: string | undefined };
}) {
  const { project } = props.data;
  const zone = project.timezone;
  const base = `/b/${project.id}/agenda`;
  const { days, day } = props;
  const tracks = new Map(props.tracks.map((t) => [t.id, t]));
  const conflictsOf = new Map<string, Conflict[]>();
  for (const c of props.conflicts) {
    const list = conflictsOf.get(c.sessionId);
    if (list) list.push(c);
    else conflictsOf.set(c.sessionId, [c]);
  }
  const matching = props.sessions.filter((s) => !props.filter.track || s.trackId === props.filter.track);
  const shown = matching.slice(0, maxGridSessions);
  const columns: Column[] = [
    ...props.columnRooms,
    ...(props.noRoomColumn ? [{ id: "", name: "No room" } as Room] : []),
  ]
    .map((r) => ({
      id: r.id,
      name: r.name,
      lanes: intoLanes(shown.filter((s) => (s.roomId ?? "") === r.id)),
    }))
    .filter((c) => c.lanes.length > 0 || (c.id !== "" && !props.filter.track));
  const shownIds = new Set(shown.map((s) => s.id));
  // Each clash comes once per session it involves (so both cells are marked); the list names it once.
  const listed = new Set<string>();
  const dayConflicts = props.conflicts.filter((c) => {
    if (!shownIds.has(c.sessionId)) return false;
    const pair = [c.sessionId, c.otherSessionId ?? ""].sort().join(" ");
    const key = `${c.kind} ${c.speakerId ?? ""} ${pair}`;
    if (listed.has(key)) return false;
    listed.add(key);
    return true;
  });
  const pageLink = (after: string | null) =>
    `${base}/grid?${new URLSearchParams({
      ...(day ? { day } : {}),
      ...(props.filter.track ? { track: props.filter.track } : {}),
      ...(after ? { after } : {}),
    })}`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="agenda" title="Agenda grid">
      <div class="page-heading">
        <h2>Agenda grid</h2>
        <nav class="tabs" aria-label="Agenda views">
          <a class="tab" href={base}>
            List
          </a>
          <a class="tab" aria-current="page" href={`${base}/grid`}>
            Grid view
          </a>
        </nav>
      </div>
      {/* A plain GET form: the filters work without JavaScript. */}
      <form class="filters" method="get" action={`${base}/grid`} aria-label="Filter the grid">
        <label>
          Day
          <select name="day">
            <Options
              options={days.map((d) => ({ value: d, label: formatDay(`${d}T12:00:00Z`, "UTC") }))}
              selected={day}
            />
          </select>
        </label>
        <NamedFilter name="track" items={props.tracks} chosen={props.filter.track} />
        <NamedFilter name="room" items={props.rooms} chosen={props.filter.room} />
        <button class="button button-secondary" type="submit">
          Show
        </button>
      </form>
      {dayConflicts.length > 0 ? (
        <section class="conflicts" aria-labelledby="conflicts-heading">
          <h3 id="conflicts-heading">
            {dayConflicts.length} conflict{dayConflicts.length === 1 ? "" : "s"} on this day
          </h3>
          <ul>
            {dayConflicts.map((c) => (
              <li>
                <a href={`${base}/sessions/${c.sessionId}`}>{c.message}</a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {props.pages.next || !props.pages.isFirst ? (
        <nav class="button-row" aria-label="Rooms">
          {props.pages.isFirst ? null : (
            <a class="button button-secondary" href={pageLink(null)}>
              First rooms
            </a>
          )}
          {props.pages.next ? (
            <a class="button button-secondary" href={pageLink(props.pages.next)}>
              Next {roomsPerPage} rooms
            </a>
          ) : null}
        </nav>
      ) : null}
      {matching.length > shown.length ? (
        <p class="note">
          This day has {matching.length.toLocaleString("en")} sessions matching these filters; the grid shows
          the first {maxGridSessions}. Choose a room or a track, or use the <a href={base}>list</a>.
        </p>
      ) : null}
      {shown.length === 0 ? (
        <EmptyState title="No sessions to show">
          <p>
            Nothing matches these filters. <a href={`${base}/sessions/new`}>Add a session</a>.
          </p>
        </EmptyState>
      ) : (
        <Grid
          sessions={shown}
          columns={columns}
          zone={zone}
          base={base}
          tracks={tracks}
          speakersBySession={props.speakersBySession}
          conflictsOf={conflictsOf}
        />
      )}
    </ProjectLayout>
  );
}

/** One of the grid's GET filters: every track (room), or the one chosen. */
function NamedFilter(props: {
  name: "track" | "room";
  items: readonly { id: string; name: string }[];
  chosen: string | undefined;
}) {
  return (
    <label>
      {props.name === "track" ? "Track" : "Room"}
      <select name={props.name}>
        <option value="">All {props.name}s</option>
        <Options options={props.items.map((i) => ({ value: i.id, label: i.name }))} selected={props.chosen} />
      </select>
    </label>
  );
}

/** The rooms × time table: a session's cell spans its rows; the table scrolls sideways, not the page. */
function Grid(props: {
  sessions: Session[];
  columns: Column[];
  zone: string;
  base: string;
  tracks: Map<string, Track>;
  speakersBySession: Map<string, Speaker[]>;
  conflictsOf: Map<string, Conflict[]>;
}) {
  const first = Math.floor(Math.min(...props.sessions.map((s) => Date.parse(s.startsAt))) / slotMs) * slotMs;
  const last = Math.ceil(Math.max(...props.sessions.map((s) => Date.parse(s.endsAt))) / slotMs) * slotMs;
  const rows = Math.min((last - first) / slotMs, 24 * 12);
  const rowOf = (iso: string) => Math.round((Date.parse(iso) - first) / slotMs);
  // Each lane indexed once by the row its sessions start on and the rows they cover: looking each
  // row up in every lane's list was rows × sessions work (1.2–2.2 s for 3,000 sessions).
  const lanes = props.columns.flatMap((c) =>
    c.lanes.map((lane) => {
      const starts = new Map<number, Session>();
      const covered = new Set<number>();
      for (const session of lane) {
        const from = rowOf(session.startsAt);
        const to = Math.min(rowOf(session.endsAt), rows);
        if (!starts.has(from)) starts.set(from, session);
        for (let row = from + 1; row < to; row++) covered.add(row);
      }
      return { starts, covered };
    }),
  );
  const cells = (row: number) =>
    lanes.map(({ starts, covered }) => {
      const starting = starts.get(row);
      if (starting)
        return <SessionCell {...props} session={starting} span={Math.max(1, rowOf(starting.endsAt) - row)} />;
      if (covered.has(row)) return null;
      return <td class="grid-empty" />;
    });
  return (
    <div class="table-scroll">
      <table class="agenda-grid">
        <thead>
          <tr>
            <th scope="col">Time ({props.zone})</th>
            {props.columns.map((c) => (
              <th scope="col" colSpan={Math.max(1, c.lanes.length)}>
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: rows }, (_, row) => {
            const time = new Date(first + row * slotMs).toISOString();
            const labelled = (first + row * slotMs) % (30 * 60_000) === 0;
            return (
              <tr>
                <th scope="row" class="grid-time">
                  {labelled ? formatTime(time, props.zone) : ""}
                </th>
                {cells(row)}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function SessionCell(props: {
  session: Session;
  span: number;
  zone: string;
  base: string;
  tracks: Map<string, Track>;
  speakersBySession: Map<string, Speaker[]>;
  conflictsOf: Map<string, Conflict[]>;
}) {
  const { session } = props;
  const track = session.trackId ? props.tracks.get(session.trackId) : undefined;
  const conflicts = props.conflictsOf.get(session.id) ?? [];
  const speakers = props.speakersBySession.get(session.id) ?? [];
  return (
    <td rowSpan={props.span} class={conflicts.length > 0 ? "grid-session grid-conflict" : "grid-session"}>
      <a href={`${props.base}/sessions/${session.id}`}>{session.title}</a>
      <p class="muted">
        {formatTime(session.startsAt, props.zone)}–{formatTime(session.endsAt, props.zone)}
      </p>
      {track ? (
        <p class="grid-track">
          {/* An SVG attribute, not a style: the page's CSP allows no inline styles. */}
          <svg width="10" height="10" aria-hidden="true">
            <rect width="10" height="10" rx="2" fill={track.color ?? "#8a94a6"} />
          </svg>{" "}
          {track.name}
        </p>
      ) : null}
      {speakers.length > 0 ? <p class="muted">{speakers.map((s) => s.name).join(", ")}</p> : null}
      {conflicts.length > 0 ? (
        <p class="grid-conflict-note" title={conflicts.map((c) => c.message).join("\n")}>
          ⚠ {conflicts.length === 1 ? "Conflict" : `${conflicts.length} conflicts`}
        </p>
      ) : null}
    </td>
  );
}
