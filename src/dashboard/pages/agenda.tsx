import type { FastifyInstance, FastifyReply } from "fastify";
import type { Room, Session, Track } from "../../modules/agenda/agenda.service.js";
import { pageContext } from "../context.js";
import { FormReader, formList, optional } from "../form-data.js";
import { type FormRequest, formRoute, loadRow, type RowLookup, rowFormRoute } from "../form-route.js";
import { toLocalInput } from "../time.js";
import { type FormState, formState } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { registerAgendaGridPage } from "./agenda-grid.js";
import { type AgendaLookups, AgendaPage, sessionStatuses } from "./agenda-list.js";
import { readSessionForm, SessionFormPage, sessionValues } from "./agenda-session-form.js";
import { EditItemPage, RoomFields, TrackFields } from "./agenda-venues.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

/** Agenda: sessions by day with room, track and speakers; tracks and rooms; the session form. */
export function registerAgendaPages(app: FastifyInstance): void {
  const { services } = app;
  const trackRow: RowLookup<Track> = {
    param: "itemId",
    what: "Track",
    find: (actor, id) => services.agenda.findTrack(actor, id),
  };
  const roomRow: RowLookup<Room> = {
    param: "itemId",
    what: "Room",
    find: (actor, id) => services.agenda.findRoom(actor, id),
  };
  const sessionRow: RowLookup<Session> = {
    param: "sessionId",
    what: "Session",
    find: (actor, id) => services.agenda.findSession(actor, id),
  };
  const agendaPath = (data: ProjectPageData) => `/b/${data.project.id}/agenda`;
  registerAgendaGridPage(app);

  /** The flash after a session is saved: conflicts are told then, never refused (conflicts.ts). */
  async function savedFlash(data: ProjectPageData, session: Session, verb: string) {
    const conflicts = (await services.agenda.agendaConflicts(data.access, data.project)).filter(
      (c) => c.sessionId === session.id,
    );
    const text = `Session “${session.title}” ${verb}.`;
    if (conflicts.length === 0) return { kind: "success" as const, text };
    return { kind: "info" as const, text: `${text} Conflicts: ${conflicts.map((c) => c.message).join(" ")}` };
  }

  async function lookups(data: ProjectPageData): Promise<AgendaLookups> {
    const window = listWindow();
    const [rooms, tracks, speakers] = await Promise.all([
      services.agenda.listRooms(data.access, window),
      services.agenda.listTracks(data.access, window),
      services.agenda.listSpeakers(data.access, { includeUnpublished: true }, window),
    ]);
    return { rooms: rooms.items, tracks: tracks.items, speakers: speakers.items };
  }

  async function agendaPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    forms: { trackState?: FormState; roomState?: FormState } = {},
  ) {
    const page = await services.agenda.listSessions(
      data.access,
      { statuses: sessionStatuses },
      listWindow(request.query.after),
    );
    const speakersBySession = await services.agenda.speakersBySessionIds(page.items.map((s) => s.id));
    return (
      <AgendaPage
        ctx={pageContext(request, reply)}
        data={data}
        sessions={page.items}
        speakersBySession={speakersBySession}
        lookups={await lookups(data)}
        nextCursor={page.hasNextPage ? page.endCursor : null}
        trackState={forms.trackState ?? formState()}
        roomState={forms.roomState ?? formState()}
      />
    );
  }

  app.get("/b/:projectId/agenda", async (request: FormRequest, reply) => {
    return sendPage(reply, await agendaPage(request, reply, await loadProjectPage(app, request)));
  });

  formRoute(app, "/b/:projectId/agenda/tracks", {
    async submit({ data, values }) {
      const track = await services.agenda.createTrack(data.actor, {
        projectId: data.project.id,
        name: values.name ?? "",
      });
      return { to: agendaPath(data), flash: { kind: "success", text: `Track “${track.name}” added.` } };
    },
    invalid: ({ request, reply, data }, trackState) => agendaPage(request, reply, data, { trackState }),
  });

  formRoute(app, "/b/:projectId/agenda/rooms", {
    async submit({ data, values }) {
      const form = new FormReader(values, data.project.timezone);
      const capacity = form.integer("capacity", false);
      form.done();
      const room = await services.agenda.createRoom(data.actor, {
        projectId: data.project.id,
        name: values.name ?? "",
        capacity,
      });
      return { to: agendaPath(data), flash: { kind: "success", text: `Room “${room.name}” added.` } };
    },
    invalid: ({ request, reply, data }, roomState) => agendaPage(request, reply, data, { roomState }),
  });

  /** The edit page of a track or a room (its id in the address), with that kind's inputs. */
  function itemPage(
    kind: "track" | "room",
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
  ) {
    const Fields = kind === "track" ? TrackFields : RoomFields;
    return (
      <EditItemPage
        ctx={pageContext(request, reply)}
        data={data}
        kind={kind}
        itemId={request.params.itemId ?? ""}
        state={state}
      >
        <Fields state={state} />
      </EditItemPage>
    );
  }

  app.get("/b/:projectId/agenda/tracks/:itemId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const track = await loadRow(data, trackRow, request.params);
    const state = formState({ name: track.name, color: track.color ?? "" });
    return sendPage(reply, itemPage("track", request, reply, data, state));
  });

  rowFormRoute(app, "/b/:projectId/agenda/tracks/:itemId", trackRow, {
    async submit({ data, row, values }) {
      const updated = await services.agenda.updateTrack(data.actor, {
        id: row.id,
        name: values.name ?? "",
        // A blank color clears it.
        color: optional(values.color)?.trim() ?? null,
      });
      return { to: agendaPath(data), flash: { kind: "success", text: `Track “${updated.name}” saved.` } };
    },
    invalid: ({ request, reply, data }, state) => itemPage("track", request, reply, data, state),
  });

  app.get("/b/:projectId/agenda/rooms/:itemId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const room = await loadRow(data, roomRow, request.params);
    const state = formState({
      name: room.name,
      capacity: room.capacity === null ? "" : String(room.capacity),
    });
    return sendPage(reply, itemPage("room", request, reply, data, state));
  });

  rowFormRoute(app, "/b/:projectId/agenda/rooms/:itemId", roomRow, {
    async submit({ data, row, values }) {
      const form = new FormReader(values, data.project.timezone);
      const capacity = form.integer("capacity", false);
      form.done();
      const updated = await services.agenda.updateRoom(data.actor, {
        id: row.id,
        name: values.name ?? "",
        capacity,
      });
      return { to: agendaPath(data), flash: { kind: "success", text: `Room “${updated.name}” saved.` } };
    },
    invalid: ({ request, reply, data }, state) => itemPage("room", request, reply, data, state),
  });

  rowFormRoute(app, "/b/:projectId/agenda/tracks/:itemId/delete", trackRow, {
    async submit({ data, row }) {
      const track = await services.agenda.deleteTrack(data.actor, { id: row.id });
      return { to: agendaPath(data), flash: { kind: "success", text: `Track “${track.name}” deleted.` } };
    },
  });

  rowFormRoute(app, "/b/:projectId/agenda/rooms/:itemId/delete", roomRow, {
    async submit({ data, row }) {
      const room = await services.agenda.deleteRoom(data.actor, { id: row.id });
      return { to: agendaPath(data), flash: { kind: "success", text: `Room “${room.name}” deleted.` } };
    },
  });

  async function sessionPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
    speakerIds: string[],
    session?: Session,
  ) {
    return (
      <SessionFormPage
        ctx={pageContext(request, reply)}
        data={data}
        lookups={await lookups(data)}
        state={state}
        speakerIds={speakerIds}
        session={session}
      />
    );
  }

  app.get("/b/:projectId/agenda/sessions/new", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    // A new session starts on the event's first day (at its start time), an hour long.
    const { startsAt, timezone } = data.project;
    const defaults: Record<string, string> = startsAt
      ? {
          startsAt: toLocalInput(startsAt, timezone),
          endsAt: toLocalInput(new Date(Date.parse(startsAt) + 3_600_000).toISOString(), timezone),
        }
      : {};
    return sendPage(
      reply,
      await sessionPage(request, reply, data, formState({ status: "DRAFT", ...defaults }), []),
    );
  });

  formRoute(app, "/b/:projectId/agenda/sessions", {
    async submit({ request, data }) {
      const { input, form } = readSessionForm(request.body, data.project.timezone);
      form.done();
      const session = await services.agenda.createSession(data.actor, {
        projectId: data.project.id,
        ...input,
      });
      return { to: agendaPath(data), flash: await savedFlash(data, session, "created") };
    },
    invalid: ({ request, reply, data }, state) =>
      sessionPage(request, reply, data, state, formList(request.body, "speakerIds")),
  });

  app.get("/b/:projectId/agenda/sessions/:sessionId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const session = await loadRow(data, sessionRow, request.params);
    const speakers = (await services.agenda.speakersBySessionIds([session.id])).get(session.id) ?? [];
    const state = formState(sessionValues(session, data.project.timezone));
    const speakerIds = speakers.map((s) => s.id);
    return sendPage(reply, await sessionPage(request, reply, data, state, speakerIds, session));
  });

  rowFormRoute(app, "/b/:projectId/agenda/sessions/:sessionId", sessionRow, {
    async submit({ request, data, row }) {
      const { input, form } = readSessionForm(request.body, data.project.timezone);
      form.done();
      const updated = await services.agenda.updateSession(data.actor, { id: row.id, ...input });
      return { to: agendaPath(data), flash: await savedFlash(data, updated, "saved") };
    },
    invalid: ({ request, reply, data, row }, state) =>
      sessionPage(request, reply, data, state, formList(request.body, "speakerIds"), row),
  });

  rowFormRoute(app, "/b/:projectId/agenda/sessions/:sessionId/delete", sessionRow, {
    async submit({ data, row }) {
      await services.agenda.deleteSession(data.actor, { id: row.id });
      return { to: agendaPath(data), flash: { kind: "success", text: `Session “${row.title}” deleted.` } };
    },
  });
}
