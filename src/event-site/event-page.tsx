import { formatDateTime, formatDay, formatTime } from "../dashboard/time.js";
import type { Speaker } from "../modules/agenda/agenda.service.js";
import type { EventContent, EventSession, EventTicket } from "../modules/event-page/event-content.js";
import type { EventPageSettings } from "../modules/event-page/event-page.service.js";
import { formatMoney } from "../shared/money.js";
import type { Pager } from "./paging.js";
import { eventJsonLd, inlineJson, mapLink, summary } from "./seo.js";
import { SiteLayout } from "./site-layout.js";

/** Links of one event's public pages. */
export const eventPaths = {
  page: (id: string) => `/e/${id}`,
  speaker: (id: string, speakerId: string) => `/e/${id}/speakers/${speakerId}`,
  register: (id: string, ticketTypeId?: string) =>
    `/e/${id}/register${ticketTypeId ? `?ticket=${encodeURIComponent(ticketTypeId)}` : ""}`,
  agendaIcs: (id: string) => `/e/${id}/agenda.ics`,
  sessionIcs: (id: string, sessionId: string) => `/e/${id}/sessions/${sessionId}.ics`,
};

/** Multi-line organizer text as paragraphs; preact escapes it. */
function Paragraphs(props: { text: string | null }) {
  if (!props.text) return null;
  return (
    <>
      {props.text
        .split(/\n{2,}/)
        .filter((p) => p.trim())
        .map((p) => (
          <p class="prose">{p}</p>
        ))}
    </>
  );
}

/** "Mon, 5 Oct 2026, 09:00 – Tue, 6 Oct 2026, 17:00", or what is known of it. */
function dateRange(project: EventContent["project"]): string | undefined {
  if (!project.startsAt) return undefined;
  const start = formatDateTime(project.startsAt, project.timezone);
  return project.endsAt ? `${start} – ${formatDateTime(project.endsAt, project.timezone)}` : start;
}

/** The sessions grouped by calendar day in the event's zone, in order. */
function byDay(sessions: EventSession[], timeZone: string): [string, EventSession[]][] {
  const days = new Map<string, EventSession[]>();
  for (const session of sessions) {
    const day = formatDay(session.startsAt, timeZone);
    const list = days.get(day);
    if (list) list.push(session);
    else days.set(day, [session]);
  }
  return [...days];
}

function priceText(ticket: EventTicket): string {
  if (ticket.priceMinor === 0) return "Free";
  const price = formatMoney(ticket.priceMinor, ticket.currency);
  if (ticket.paymentMode === "AT_DOOR") return `${price}, pay at the door`;
  if (ticket.paymentMode === "INVOICE") return `${price}, pay by invoice`;
  if (ticket.paymentMode === "BANK_TRANSFER") return `${price}, pay by bank transfer`;
  if (ticket.paymentMode === "STRIPE") return `${price}, pay by card`;
  return price;
}

function Tickets(props: { content: EventContent; settings: EventPageSettings }) {
  const { project, tickets } = props.content;
  if (tickets.length === 0) return null;
  return (
    <section aria-labelledby="tickets-heading" class="block">
      <h2 id="tickets-heading">Tickets</h2>
      {props.settings.registrationOpen ? null : <p class="note">Registration on this page is closed.</p>}
      <ul class="tickets">
        {tickets.map((ticket) => (
          <li class="ticket">
            <div class="ticket-main">
              <h3>{ticket.name}</h3>
              <p class="price">{priceText(ticket)}</p>
              {ticket.description ? <p class="muted">{ticket.description}</p> : null}
            </div>
            <div class="ticket-side">
              <p class="left">{ticket.remaining > 0 ? `${ticket.remaining} left` : "Sold out"}</p>
              {props.settings.registrationOpen && ticket.registrable && ticket.remaining > 0 ? (
                <a class="button" href={eventPaths.register(project.id, ticket.id)}>
                  Register<span class="visually-hidden">{` for ${ticket.name}`}</span>
                </a>
              ) : null}
              {props.settings.registrationOpen &&
              !ticket.registrable &&
              ticket.orderable &&
              ticket.remaining > 0 ? (
                <a class="button" href={`/e/${project.id}/order?q.${encodeURIComponent(ticket.id)}=1`}>
                  Buy<span class="visually-hidden">{` ${ticket.name}`}</span>
                </a>
              ) : null}
              {props.settings.registrationOpen &&
              ticket.remaining === 0 &&
              (ticket.registrable || ticket.orderable) ? (
                <a
                  class="button button-secondary"
                  href={`/e/${project.id}/waiting-list?ticket=${encodeURIComponent(ticket.id)}`}
                >
                  Join the waiting list<span class="visually-hidden">{` for ${ticket.name}`}</span>
                </a>
              ) : null}
              {ticket.orderable || ticket.remaining === 0 ? null : (
                <p class="muted">Not sold on this page; ask the organizer.</p>
              )}
            </div>
          </li>
        ))}
      </ul>
      {props.settings.registrationOpen && tickets.some((t) => t.orderable && t.remaining > 0) ? (
        <p>
          <a href={`/e/${project.id}/order`}>Buy several tickets in one order</a>
        </p>
      ) : null}
    </section>
  );
}

function SpeakerNames(props: { projectId: string; speakers: Speaker[] }) {
  if (props.speakers.length === 0) return null;
  return (
    <p class="speakers">
      {props.speakers.map((speaker, i) => (
        <>
          {i > 0 ? ", " : null}
          <a href={eventPaths.speaker(props.projectId, speaker.id)}>{speaker.name}</a>
        </>
      ))}
    </p>
  );
}

/** One session in the agenda or on a speaker's page. */
function SessionItem(props: {
  projectId: string;
  session: EventSession | EventContent["sessions"][number];
  timeZone: string;
}) {
  const { session, projectId, timeZone } = props;
  return (
    <li class="session" id={`session-${session.id}`}>
      <p class="when">
        <time datetime={session.startsAt}>{formatTime(session.startsAt, timeZone)}</time>–
        <time datetime={session.endsAt}>{formatTime(session.endsAt, timeZone)}</time>
      </p>
      <div class="what">
        <h4>{session.title}</h4>
        <p class="where">
          {[session.room?.name, session.track ? `Track: ${session.track.name}` : undefined]
            .filter(Boolean)
            .join(" · ")}
        </p>
        <SpeakerNames projectId={projectId} speakers={session.speakers} />
        <Paragraphs text={session.description} />
        <a class="small" href={eventPaths.sessionIcs(projectId, session.id)}>
          Add to calendar<span class="visually-hidden">{`: ${session.title}`}</span>
        </a>
      </div>
    </li>
  );
}

function Agenda(props: { content: EventContent }) {
  const { project, sessions } = props.content;
  if (sessions.length === 0) return null;
  return (
    <section aria-labelledby="agenda-heading" class="block">
      <h2 id="agenda-heading">Agenda</h2>
      <p class="muted">
        Times in {project.timezone}.{" "}
        <a href={eventPaths.agendaIcs(project.id)}>Subscribe to the agenda (iCalendar)</a>
      </p>
      {byDay(sessions, project.timezone).map(([day, list]) => (
        <section class="day" aria-label={day}>
          <h3>{day}</h3>
          <ul class="sessions">
            {list.map((session) => (
              <SessionItem projectId={project.id} session={session} timeZone={project.timezone} />
            ))}
          </ul>
        </section>
      ))}
      {props.content.truncated ? (
        <p class="note">The agenda is longer than this page shows; subscribe to see it all.</p>
      ) : null}
    </section>
  );
}

function Speakers(props: { content: EventContent }) {
  const { project, speakers } = props.content;
  if (speakers.length === 0) return null;
  return (
    <section aria-labelledby="speakers-heading" class="block">
      <h2 id="speakers-heading">Speakers</h2>
      <ul class="speaker-list">
        {speakers.map((speaker) => (
          <li>
            <a href={eventPaths.speaker(project.id, speaker.id)}>{speaker.name}</a>
            {speaker.jobTitle || speaker.company ? (
              <span class="muted"> {[speaker.jobTitle, speaker.company].filter(Boolean).join(", ")}</span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Links to the programme's other pages, when it has more than one. */
function PagerNav(props: { projectId: string; pager: Pager }) {
  const { page, pages } = props.pager;
  if (pages <= 1) return null;
  const href = (n: number) =>
    n === 1 ? eventPaths.page(props.projectId) : `${eventPaths.page(props.projectId)}?page=${n}`;
  return (
    <nav class="block" aria-label="Programme pages">
      <p>
        Page {page} of {pages}. {page > 1 ? <a href={href(page - 1)}>Previous page</a> : null}
        {page > 1 && page < pages ? " · " : null}
        {page < pages ? <a href={href(page + 1)}>Next page</a> : null}
      </p>
    </nav>
  );
}

/** The public page of a published event (`/e/<id>`), one page of its programme. */
export function EventPage(props: {
  content: EventContent;
  pager: Pager;
  settings: EventPageSettings;
  url: string;
}) {
  const { project } = props.content;
  const { venue } = project;
  const when = dateRange(project);
  const map = mapLink(venue);
  const place = [venue.name, venue.address, venue.city, venue.country].filter(Boolean).join(", ");
  const meta = {
    title: project.name,
    description: summary(project.description) || [when, place].filter(Boolean).join(" · ") || project.name,
    url: props.url,
    jsonLd: inlineJson(eventJsonLd(props.content, props.url)),
  };
  return (
    <SiteLayout meta={meta} eventName={project.name} eventHref={eventPaths.page(project.id)}>
      <h1>{project.name}</h1>
      <dl class="facts">
        {when ? (
          <div>
            <dt>When</dt>
            <dd>
              {when} <span class="muted">({project.timezone} time)</span>
            </dd>
          </div>
        ) : null}
        {place ? (
          <div>
            <dt>Where</dt>
            <dd>
              {place}
              {map ? (
                <>
                  {" "}
                  <a href={map} rel="noopener noreferrer">
                    Map<span class="visually-hidden"> (OpenStreetMap)</span>
                  </a>
                </>
              ) : null}
            </dd>
          </div>
        ) : null}
        {project.website ? (
          <div>
            <dt>Website</dt>
            <dd>
              <a href={project.website} rel="noopener noreferrer nofollow">
                {project.website}
              </a>
            </dd>
          </div>
        ) : null}
      </dl>
      <Paragraphs text={project.description} />
      <Tickets content={props.content} settings={props.settings} />
      <Agenda content={props.content} />
      <Speakers content={props.content} />
      <PagerNav projectId={project.id} pager={props.pager} />
    </SiteLayout>
  );
}

/** A speaker's public page: profile and their published sessions. */
export function SpeakerPage(props: { content: EventContent; speaker: Speaker; url: string }) {
  const { project } = props.content;
  const { speaker } = props;
  const sessions = props.content.sessions.filter((s) => s.speakers.some((p) => p.id === speaker.id));
  const role = [speaker.jobTitle, speaker.company].filter(Boolean).join(", ");
  const meta = {
    title: `${speaker.name} · ${project.name}`,
    description: summary(speaker.bio) || `${speaker.name} speaks at ${project.name}.`,
    url: props.url,
  };
  return (
    <SiteLayout meta={meta} eventName={project.name} eventHref={eventPaths.page(project.id)}>
      <h1>{speaker.name}</h1>
      {role ? <p class="lead">{role}</p> : null}
      {speaker.photoUrl?.startsWith("https://") ? (
        <img class="photo" src={speaker.photoUrl} alt={speaker.name} width={160} height={160} />
      ) : null}
      <Paragraphs text={speaker.bio} />
      {speaker.links.length > 0 ? (
        <ul class="links">
          {speaker.links.map((link) => (
            <li>
              <a href={link.url} rel="noopener noreferrer nofollow ugc">
                {link.label}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {sessions.length > 0 ? (
        <section aria-labelledby="talks-heading" class="block">
          <h2 id="talks-heading">Sessions</h2>
          <p class="muted">Times in {project.timezone}.</p>
          <ul class="sessions">
            {sessions.map((session) => (
              <li class="session">
                <p class="when">{formatDateTime(session.startsAt, project.timezone)}</p>
                <div class="what">
                  <h3>
                    <a href={`${eventPaths.page(project.id)}#session-${session.id}`}>{session.title}</a>
                  </h3>
                  {session.room ? <p class="where">{session.room.name}</p> : null}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <p>
        <a href={eventPaths.page(project.id)}>Back to {project.name}</a>
      </p>
    </SiteLayout>
  );
}
