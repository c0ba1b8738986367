import type { ComponentChildren } from "preact";
import type { Room, Session, SessionStatus, Speaker, Track } from "../../modules/agenda/agenda.service.js";
import type { PageContext } from "../context.js";
import { formatDay, formatTime } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import { Form, FormError, type FormState, SubmitButton, TextField } from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import type { ProjectPageData } from "./project-page.js";

/** Every status, in the order the organizer's lists and forms show them. */
export const sessionStatuses: SessionStatus[] = ["DRAFT", "PUBLISHED", "CANCELLED"];
const statusTone = { DRAFT: "neutral", PUBLISHED: "success", CANCELLED: "danger" } as const;

/** The pick-lists of the agenda's forms. */
export interface AgendaLookups {
  rooms: Room[];
  tracks: Track[];
  speakers: Speaker[];
}

/** The agenda tab: sessions by day, with the tracks and rooms panels and their "Add" forms. */
export function AgendaPage(props: {
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
          <nav class="tabs" aria-label="Agenda views">
            <a class="tab" aria-current="page" href={base}>
              List
            </a>
            <a class="tab" href={`${base}/grid`}>
              Grid view
            </a>
          </nav>
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
          <NamedPanel
            kind="track"
            items={props.lookups.tracks}
            base={base}
            csrf={props.ctx.csrf}
            state={props.trackState}
          />
          <NamedPanel
            kind="room"
            items={props.lookups.rooms}
            base={base}
            csrf={props.ctx.csrf}
            state={props.roomState}
          >
            <TextField
              name="capacity"
              label="Capacity"
              type="number"
              min="0"
              state={props.roomState}
              idPrefix="room"
            />
          </NamedPanel>
        </aside>
      </div>
    </ProjectLayout>
  );
}

/** The tracks or the rooms of the agenda: the list, and the form that adds one (a name, and `children`). */
function NamedPanel(props: {
  kind: "track" | "room";
  items: (Track | Room)[];
  base: string;
  csrf: string;
  state: FormState;
  children?: ComponentChildren;
}) {
  const { kind, state } = props;
  const title = kind === "track" ? "Track" : "Room";
  return (
    <section class="panel" aria-labelledby={`${kind}s-heading`}>
      <h2 id={`${kind}s-heading`}>{`${title}s`}</h2>
      <NamedList items={props.items} deleteBase={`${props.base}/${kind}s`} csrf={props.csrf} kind={kind} />
      <Form action={`${props.base}/${kind}s`} csrf={props.csrf} label={`Add ${kind}`}>
        <FormError state={state} />
        <TextField name="name" label={`${title} name`} state={state} required idPrefix={kind} />
        {props.children}
        <SubmitButton variant="secondary">{`Add ${kind}`}</SubmitButton>
      </Form>
    </section>
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
