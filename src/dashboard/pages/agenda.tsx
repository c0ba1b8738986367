import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import { httpStatusOf } from "../../errors.js";
import type { Room, Session, SessionStatus, Speaker, Track } from "../../modules/agenda/agenda.service.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { FormReader, formList, formValues, optional, stateFromError } from "../form-data.js";
import { formatDay, formatTime, toLocalInput } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import {
  CheckboxGroup,
  Form,
  FormError,
  type FormState,
  formState,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { findInProject, listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

type ProjectRequest = FastifyRequest<{ Params: { projectId: string } }>;
type SessionRequest = FastifyRequest<{ Params: { projectId: string; sessionId: string } }>;
type ItemRequest = FastifyRequest<{ Params: { projectId: string; itemId: string } }>;

const sessionStatuses: SessionStatus[] = ["DRAFT", "PUBLISHED", "CANCELLED"];
const statusTone = { DRAFT: "neutral", PUBLISHED: "success", CANCELLED: "danger" } as const;

interface AgendaLookups {
  rooms: Room[];
  tracks: Track[];
  speakers: Speaker[];
}

function AgendaPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  sessions: Session[];
  speakersBySession: Map<string, Speaker[]>;
  lookups: AgendaLookups;
  nextCursor: string | null;
  trackState: FormState;
  roomState: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/agenda`;
  const rooms = new Map(props.lookups.rooms.map((r) => [r.id, r]));
  const tracks = new Map(props.lookups.tracks.map((t) => [t.id, t]));
  const days = new Map<string, Session[]>();
  for (const session of props.sessions) {
    const day = formatDay(session.startsAt, project.timezone);
    days.set(day, [...(days.get(day) ?? []), session]);
  }
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="agenda" title="Agenda">
      <div class="grid-2">
        <section aria-labelledby="sessions-heading">
          <div class="page-heading">
            <h2 id="sessions-heading">Sessions</h2>
            <a class="button button-primary" href={`${base}/sessions/new`}>
              New session
            </a>
          </div>
          {props.sessions.length === 0 ? (
            <EmptyState title="No sessions yet">
              <p>Add tracks and rooms on the right, then create the first session of your programme.</p>
            </EmptyState>
          ) : (
            [...days].map(([day, sessions]) => (
              <>
                <h3 class="day-heading">{day}</h3>
                <ul class="card-list" aria-label={day}>
                  {sessions.map((session) => {
                    const room = session.roomId ? rooms.get(session.roomId) : undefined;
                    const track = session.trackId ? tracks.get(session.trackId) : undefined;
                    const speakers = props.speakersBySession.get(session.id) ?? [];
                    return (
                      <li class="card">
                        <div class="card-main">
                          <p class="muted">
                            {formatTime(session.startsAt, project.timezone)}–
                            {formatTime(session.endsAt, project.timezone)}
                            {room ? ` · ${room.name}` : ""}
                            {track ? ` · ${track.name}` : ""}
                          </p>
                          <a class="card-title" href={`${base}/sessions/${session.id}`}>
                            {session.title}
                          </a>
                          {speakers.length > 0 ? (
                            <ul class="chips" aria-label="Speakers">
                              {speakers.map((s) => (
                                <li class="chip">{s.name}</li>
                              ))}
                            </ul>
                          ) : null}
                        </div>
                        <div class="card-meta">
                          <Badge tone={statusTone[session.status]}>{session.status.toLowerCase()}</Badge>
                        </div>
                      </li>
                    );
                  })}
                </ul>
              </>
            ))
          )}
          {props.nextCursor ? (
            <p>
              <a href={`${base}?after=${encodeURIComponent(props.nextCursor)}`}>Later sessions</a>
            </p>
          ) : null}
        </section>
        <aside aria-label="Tracks and rooms">
          <section class="panel" aria-labelledby="tracks-heading">
            <h2 id="tracks-heading">Tracks</h2>
            <NamedList
              items={props.lookups.tracks}
              deleteBase={`${base}/tracks`}
              csrf={props.ctx.csrf}
              kind="track"
            />
            <Form action={`${base}/tracks`} csrf={props.ctx.csrf} label="Add track">
              <FormError state={props.trackState} />
              <TextField name="name" label="Track name" state={props.trackState} required idPrefix="track" />
              <SubmitButton variant="secondary">Add track</SubmitButton>
            </Form>
          </section>
          <section class="panel" aria-labelledby="rooms-heading">
            <h2 id="rooms-heading">Rooms</h2>
            <NamedList
              items={props.lookups.rooms}
              deleteBase={`${base}/rooms`}
              csrf={props.ctx.csrf}
              kind="room"
            />
            <Form action={`${base}/rooms`} csrf={props.ctx.csrf} label="Add room">
              <FormError state={props.roomState} />
              <TextField name="name" label="Room name" state={props.roomState} required idPrefix="room" />
              <TextField
                name="capacity"
                label="Capacity"
                type="number"
                min="0"
                state={props.roomState}
                idPrefix="room"
              />
              <SubmitButton variant="secondary">Add room</SubmitButton>
            </Form>
          </section>
        </aside>
      </div>
    </ProjectLayout>
  );
}

function NamedList(props: { items: (Track | Room)[]; deleteBase: string; csrf: string; kind: string }) {
  if (props.items.length === 0) return <p class="muted">No {props.kind}s yet.</p>;
  return (
    <ul class="plain-list">
      {props.items.map((item) => (
        <li>
          <span>
            {item.name}
            {"capacity" in item && item.capacity !== null ? (
              <span class="muted"> · {item.capacity} seats</span>
            ) : null}
          </span>
          <div class="row-actions">
            <a href={`${props.deleteBase}/${item.id}`} aria-label={`Edit ${props.kind} ${item.name}`}>
              Edit
            </a>
            <Form
              action={`${props.deleteBase}/${item.id}/delete`}
              csrf={props.csrf}
              class="inline-form"
              confirm={`Delete the ${props.kind} “${item.name}”? Sessions keep their other details.`}
            >
              <button
                type="submit"
                class="button button-link"
                aria-label={`Delete ${props.kind} ${item.name}`}
              >
                Delete
              </button>
            </Form>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The edit page of a track or a room: one form, its fields given by the caller. */
function EditItemPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  kind: "track" | "room";
  itemId: string;
  state: FormState;
  children: ComponentChildren;
}) {
  const base = `/b/${props.data.project.id}/agenda`;
  const title = `Edit ${props.kind}`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="agenda" title={title}>
      <div class="narrow-panel panel">
        <PageHeading title={title} level={2} />
        <Form action={`${base}/${props.kind}s/${props.itemId}`} csrf={props.ctx.csrf} label={title}>
          <FormError state={props.state} />
          {props.children}
          <div class="form-actions">
            <SubmitButton>Save {props.kind}</SubmitButton>
            <a class="button button-secondary" href={base}>
              Cancel
            </a>
          </div>
        </Form>
      </div>
    </ProjectLayout>
  );
}

function TrackFields(props: { state: FormState }) {
  return (
    <>
      <TextField name="name" label="Track name" state={props.state} required />
      <TextField name="color" label="Color" state={props.state} hint="As #RRGGBB, e.g. #1A73E8." />
    </>
  );
}

function RoomFields(props: { state: FormState }) {
  return (
    <>
      <TextField name="name" label="Room name" state={props.state} required />
      <TextField name="capacity" label="Capacity" type="number" min="0" state={props.state} />
    </>
  );
}

function SessionFormPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  lookups: AgendaLookups;
  state: FormState;
  speakerIds: string[];
  session?: Session;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/agenda`;
  const editing = props.session;
  const title = editing ? "Edit session" : "New session";
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="agenda" title={title}>
      <div class="narrow-panel panel">
        <PageHeading title={title} level={2} />
        <Form
          action={editing ? `${base}/sessions/${editing.id}` : `${base}/sessions`}
          csrf={props.ctx.csrf}
          label={title}
        >
          <FormError state={props.state} />
          <TextField name="title" label="Title" state={props.state} required />
          <TextAreaField name="description" label="Description" state={props.state} />
          <div class="field-row">
            <TextField name="startsAt" label="Starts" type="datetime-local" state={props.state} required />
            <TextField name="endsAt" label="Ends" type="datetime-local" state={props.state} required />
          </div>
          <p class="hint">Times are in the event's time zone, {project.timezone}.</p>
          <div class="field-row">
            <SelectField
              name="roomId"
              label="Room"
              state={props.state}
              placeholder="No room"
              options={props.lookups.rooms.map((r) => ({ value: r.id, label: r.name }))}
            />
            <SelectField
              name="trackId"
              label="Track"
              state={props.state}
              placeholder="No track"
              options={props.lookups.tracks.map((t) => ({ value: t.id, label: t.name }))}
            />
          </div>
          {props.lookups.speakers.length > 0 ? (
            <CheckboxGroup
              name="speakerIds"
              label="Speakers"
              state={props.state}
              options={props.lookups.speakers.map((s) => ({
                value: s.id,
                label: s.name,
                description: [s.jobTitle, s.company].filter(Boolean).join(", ") || undefined,
              }))}
              checked={props.speakerIds}
            />
          ) : (
            <p class="hint">
              No speakers yet: <a href={`/b/${project.id}/speakers`}>add speakers</a> to assign them here.
            </p>
          )}
          <div class="field-row">
            <TextField name="capacity" label="Capacity" type="number" min="0" state={props.state} />
            <SelectField
              name="status"
              label="Status"
              state={props.state}
              required
              options={sessionStatuses.map((s) => ({
                value: s,
                label: s.charAt(0) + s.slice(1).toLowerCase(),
              }))}
              hint="Only published sessions are public."
            />
          </div>
          <div class="form-actions">
            <SubmitButton>{editing ? "Save session" : "Create session"}</SubmitButton>
            <a class="button button-secondary" href={base}>
              Cancel
            </a>
          </div>
        </Form>
        {editing ? (
          <Form
            action={`${base}/sessions/${editing.id}/delete`}
            csrf={props.ctx.csrf}
            class="danger-zone"
            confirm={`Delete the session “${editing.title}”? This cannot be undone.`}
          >
            <SubmitButton variant="danger">Delete session</SubmitButton>
          </Form>
        ) : null}
      </div>
    </ProjectLayout>
  );
}

function sessionValues(session: Session, timeZone: string): Record<string, string> {
  return {
    title: session.title,
    description: session.description ?? "",
    startsAt: toLocalInput(session.startsAt, timeZone),
    endsAt: toLocalInput(session.endsAt, timeZone),
    roomId: session.roomId ?? "",
    trackId: session.trackId ?? "",
    capacity: session.capacity === null ? "" : String(session.capacity),
    status: session.status,
  };
}

function readSessionForm(body: unknown, timeZone: string) {
  const values = formValues(body);
  const speakerIds = formList(body, "speakerIds");
  const form = new FormReader(values, timeZone);
  const input = {
    title: form.text("title"),
    description: form.text("description"),
    startsAt: form.time("startsAt", true) ?? "",
    endsAt: form.time("endsAt", true) ?? "",
    roomId: form.text("roomId") || null,
    trackId: form.text("trackId") || null,
    capacity: form.integer("capacity", false),
    status: (form.text("status") || "DRAFT") as SessionStatus,
    speakerIds,
  };
  return { values, speakerIds, input, form };
}

/** Agenda: sessions by day with room, track and speakers; tracks and rooms; the session form. */
export function registerAgendaPages(app: FastifyInstance): void {
  const { services } = app;

  async function lookups(data: ProjectPageData): Promise<AgendaLookups> {
    const window = listWindow();
    const [rooms, tracks, speakers] = await Promise.all([
      services.agenda.listRooms(data.access, window),
      services.agenda.listTracks(data.access, window),
      services.agenda.listSpeakers(data.access, { includeUnpublished: true }, window),
    ]);
    return { rooms: rooms.items, tracks: tracks.items, speakers: speakers.items };
  }

  async function renderAgenda(
    request: ProjectRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    forms: { trackState?: FormState; roomState?: FormState } = {},
    status = 200,
  ) {
    const after = (request.query as { after?: string } | undefined)?.after;
    const page = await services.agenda.listSessions(
      data.access,
      { statuses: sessionStatuses },
      listWindow(after),
    );
    const speakersBySession = await services.agenda.speakersBySessionIds(page.items.map((s) => s.id));
    return sendPage(
      reply,
      <AgendaPage
        ctx={pageContext(request, reply)}
        data={data}
        sessions={page.items}
        speakersBySession={speakersBySession}
        lookups={await lookups(data)}
        nextCursor={page.hasNextPage ? page.endCursor : null}
        trackState={forms.trackState ?? formState()}
        roomState={forms.roomState ?? formState()}
      />,
      status,
    );
  }

  app.get("/b/:projectId/agenda", async (request: ProjectRequest, reply) => {
    return renderAgenda(request, reply, await loadProjectPage(app, request));
  });

  app.post("/b/:projectId/agenda/tracks", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    try {
      const track = await services.agenda.createTrack(data.actor, {
        projectId: data.project.id,
        name: values.name ?? "",
      });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Track “${track.name}” added.`,
      });
    } catch (error) {
      return renderAgenda(
        request,
        reply,
        data,
        { trackState: stateFromError(error, values) },
        httpStatusOf(error),
      );
    }
  });

  app.post("/b/:projectId/agenda/rooms", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    try {
      const form = new FormReader(values, data.project.timezone);
      const capacity = form.integer("capacity", false);
      form.done();
      const room = await services.agenda.createRoom(data.actor, {
        projectId: data.project.id,
        name: values.name ?? "",
        capacity,
      });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Room “${room.name}” added.`,
      });
    } catch (error) {
      return renderAgenda(
        request,
        reply,
        data,
        { roomState: stateFromError(error, values) },
        httpStatusOf(error),
      );
    }
  });

  async function findTrack(data: ProjectPageData, trackId: string): Promise<Track> {
    return findInProject(data, "Track", await services.agenda.findTrack(data.actor, trackId));
  }

  async function findRoom(data: ProjectPageData, roomId: string): Promise<Room> {
    return findInProject(data, "Room", await services.agenda.findRoom(data.actor, roomId));
  }

  function trackPage(request: ItemRequest, reply: FastifyReply, data: ProjectPageData, state: FormState) {
    return (
      <EditItemPage
        ctx={pageContext(request, reply)}
        data={data}
        kind="track"
        itemId={request.params.itemId}
        state={state}
      >
        <TrackFields state={state} />
      </EditItemPage>
    );
  }

  function roomPage(request: ItemRequest, reply: FastifyReply, data: ProjectPageData, state: FormState) {
    return (
      <EditItemPage
        ctx={pageContext(request, reply)}
        data={data}
        kind="room"
        itemId={request.params.itemId}
        state={state}
      >
        <RoomFields state={state} />
      </EditItemPage>
    );
  }

  app.get("/b/:projectId/agenda/tracks/:itemId", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const track = await findTrack(data, request.params.itemId);
    const state = formState({ name: track.name, color: track.color ?? "" });
    return sendPage(reply, trackPage(request, reply, data, state));
  });

  app.post("/b/:projectId/agenda/tracks/:itemId", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const track = await findTrack(data, request.params.itemId);
    const values = formValues(request.body);
    try {
      const updated = await services.agenda.updateTrack(data.actor, {
        id: track.id,
        name: values.name ?? "",
        // A blank color clears it.
        color: optional(values.color)?.trim() ?? null,
      });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Track “${updated.name}” saved.`,
      });
    } catch (error) {
      return sendPage(
        reply,
        trackPage(request, reply, data, stateFromError(error, values)),
        httpStatusOf(error),
      );
    }
  });

  app.get("/b/:projectId/agenda/rooms/:itemId", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const room = await findRoom(data, request.params.itemId);
    const state = formState({
      name: room.name,
      capacity: room.capacity === null ? "" : String(room.capacity),
    });
    return sendPage(reply, roomPage(request, reply, data, state));
  });

  app.post("/b/:projectId/agenda/rooms/:itemId", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const room = await findRoom(data, request.params.itemId);
    const values = formValues(request.body);
    try {
      const form = new FormReader(values, data.project.timezone);
      const capacity = form.integer("capacity", false);
      form.done();
      const updated = await services.agenda.updateRoom(data.actor, {
        id: room.id,
        name: values.name ?? "",
        capacity,
      });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Room “${updated.name}” saved.`,
      });
    } catch (error) {
      return sendPage(
        reply,
        roomPage(request, reply, data, stateFromError(error, values)),
        httpStatusOf(error),
      );
    }
  });

  app.post("/b/:projectId/agenda/tracks/:itemId/delete", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const track = await services.agenda.deleteTrack(data.actor, { id: request.params.itemId });
    return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
      kind: "success",
      text: `Track “${track.name}” deleted.`,
    });
  });

  app.post("/b/:projectId/agenda/rooms/:itemId/delete", async (request: ItemRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const room = await services.agenda.deleteRoom(data.actor, { id: request.params.itemId });
    return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
      kind: "success",
      text: `Room “${room.name}” deleted.`,
    });
  });

  app.get("/b/:projectId/agenda/sessions/new", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(
      reply,
      <SessionFormPage
        ctx={pageContext(request, reply)}
        data={data}
        lookups={await lookups(data)}
        state={formState({ status: "DRAFT" })}
        speakerIds={[]}
      />,
    );
  });

  app.post("/b/:projectId/agenda/sessions", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const { values, speakerIds, input, form } = readSessionForm(request.body, data.project.timezone);
    try {
      form.done();
      const session = await services.agenda.createSession(data.actor, {
        projectId: data.project.id,
        ...input,
      });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Session “${session.title}” created.`,
      });
    } catch (error) {
      const state = stateFromError(error, values);
      return sendPage(
        reply,
        <SessionFormPage
          ctx={pageContext(request, reply)}
          data={data}
          lookups={await lookups(data)}
          state={state}
          speakerIds={speakerIds}
        />,
        httpStatusOf(error),
      );
    }
  });

  // A session id of another project answers like a missing one.
  async function findSession(data: ProjectPageData, sessionId: string): Promise<Session> {
    return findInProject(data, "Session", await services.agenda.findSession(data.actor, sessionId));
  }

  app.get("/b/:projectId/agenda/sessions/:sessionId", async (request: SessionRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const session = await findSession(data, request.params.sessionId);
    const speakers = (await services.agenda.speakersBySessionIds([session.id])).get(session.id) ?? [];
    return sendPage(
      reply,
      <SessionFormPage
        ctx={pageContext(request, reply)}
        data={data}
        lookups={await lookups(data)}
        state={formState(sessionValues(session, data.project.timezone))}
        speakerIds={speakers.map((s) => s.id)}
        session={session}
      />,
    );
  });

  app.post("/b/:projectId/agenda/sessions/:sessionId", async (request: SessionRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const session = await findSession(data, request.params.sessionId);
    const { values, speakerIds, input, form } = readSessionForm(request.body, data.project.timezone);
    try {
      form.done();
      const updated = await services.agenda.updateSession(data.actor, { id: session.id, ...input });
      return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
        kind: "success",
        text: `Session “${updated.title}” saved.`,
      });
    } catch (error) {
      const state = stateFromError(error, values);
      return sendPage(
        reply,
        <SessionFormPage
          ctx={pageContext(request, reply)}
          data={data}
          lookups={await lookups(data)}
          state={state}
          speakerIds={speakerIds}
          session={session}
        />,
        httpStatusOf(error),
      );
    }
  });

  app.post("/b/:projectId/agenda/sessions/:sessionId/delete", async (request: SessionRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const session = await findSession(data, request.params.sessionId);
    await services.agenda.deleteSession(data.actor, { id: session.id });
    return redirectTo(request, reply, `/b/${data.project.id}/agenda`, {
      kind: "success",
      text: `Session “${session.title}” deleted.`,
    });
  });
}
