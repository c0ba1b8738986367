import type { Speaker } from "../modules/agenda/agenda.service.js";
import type { EventContent, EventSession } from "../modules/event-page/event-content.js";
import type { EventPageSettings } from "../modules/event-page/page-settings.js";
import type { Translator } from "../shared/i18n/translator.js";
import { eventPaths } from "./event-paths.js";
import { Tickets } from "./event-tickets.js";
import { inLanguage, type PageLanguage } from "./page-language.js";
import type { Pager } from "./paging.js";
import { eventJsonLd, inlineJson, mapLink, summary } from "./seo.js";
import { SiteLayout } from "./site-layout.js";

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
function dateRange(project: EventContent["project"], words: Translator): string | undefined {
  if (!project.startsAt) return undefined;
  const start = words.dateTime(project.startsAt, project.timezone);
  return project.endsAt ? `${start} – ${words.dateTime(project.endsAt, project.timezone)}` : start;
}

/** The sessions grouped by calendar day in the event's zone, in order. */
function byDay(sessions: EventSession[], timeZone: string, words: Translator): [string, EventSession[]][] {
  const days = new Map<string, EventSession[]>();
  for (const session of sessions) {
    const day = words.day(session.startsAt, timeZone);
    const list = days.get(day);
    if (list) list.push(session);
    else days.set(day, [session]);
  }
  return [...days];
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
  words: Translator;
}) {
  const { session, projectId, timeZone, words } = props;
  return (
    <li class="session" id={`session-${session.id}`}>
      <p class="when">
        <time datetime={session.startsAt}>{words.time(session.startsAt, timeZone)}</time>–
        <time datetime={session.endsAt}>{words.time(session.endsAt, timeZone)}</time>
      </p>
      <div class="what">
        <h4>{session.title}</h4>
        <p class="where">
          {[
            session.room?.name,
            session.track ? words.t("agenda.track", { track: session.track.name }) : undefined,
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
        <SpeakerNames projectId={projectId} speakers={session.speakers} />
        <Paragraphs text={session.description} />
        <a class="small" href={eventPaths.sessionIcs(projectId, session.id)}>
          {words.t("agenda.addToCalendar")}
          <span class="visually-hidden">{`: ${session.title}`}</span>
        </a>
      </div>
    </li>
  );
}

function Agenda(props: { content: EventContent; words: Translator }) {
  const { project, sessions } = props.content;
  const { words } = props;
  if (sessions.length === 0) return null;
  return (
    <section aria-labelledby="agenda-heading" class="block">
      <h2 id="agenda-heading">{words.t("agenda.heading")}</h2>
      <p class="muted">
        {words.t("agenda.timesIn", { zone: project.timezone })}{" "}
        <a href={eventPaths.agendaIcs(project.id)}>{words.t("agenda.subscribe")}</a>
      </p>
      {byDay(sessions, project.timezone, words).map(([day, list]) => (
        <section class="day" aria-label={day}>
          <h3>{day}</h3>
          <ul class="sessions">
            {list.map((session) => (
              <SessionItem
                projectId={project.id}
                session={session}
                timeZone={project.timezone}
                words={words}
              />
            ))}
          </ul>
        </section>
      ))}
      {props.content.truncated ? <p class="note">{words.t("agenda.truncated")}</p> : null}
    </section>
  );
}

function Speakers(props: { content: EventContent; words: Translator }) {
  const { project, speakers } = props.content;
  if (speakers.length === 0) return null;
  return (
    <section aria-labelledby="speakers-heading" class="block">
      <h2 id="speakers-heading">{props.words.t("speakers.heading")}</h2>
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
function PagerNav(props: { projectId: string; pager: Pager; lang: PageLanguage }) {
  const { page, pages } = props.pager;
  const { t } = props.lang.words;
  if (pages <= 1) return null;
  const href = (n: number) =>
    inLanguage(
      n === 1 ? eventPaths.page(props.projectId) : `${eventPaths.page(props.projectId)}?page=${n}`,
      props.lang,
    );
  return (
    <nav class="block" aria-label={t("pager.label")}>
      <p>
        {t("pager.position", { page, pages })}{" "}
        {page > 1 ? <a href={href(page - 1)}>{t("pager.previous")}</a> : null}
        {page > 1 && page < pages ? " · " : null}
        {page < pages ? <a href={href(page + 1)}>{t("pager.next")}</a> : null}
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
  lang: PageLanguage;
  /** This page's own path (with its page number), for the language switcher. */
  path: string;
}) {
  const { project } = props.content;
  const { venue } = project;
  const { words } = props.lang;
  const { t } = words;
  const when = dateRange(project, words);
  const map = mapLink(venue);
  const place = [venue.name, venue.address, venue.city, venue.country].filter(Boolean).join(", ");
  const meta = {
    title: project.name,
    description: summary(project.description) || [when, place].filter(Boolean).join(" · ") || project.name,
    url: props.url,
    jsonLd: inlineJson(eventJsonLd(props.content, props.url)),
  };
  return (
    <SiteLayout
      meta={meta}
      eventName={project.name}
      eventHref={inLanguage(eventPaths.page(project.id), props.lang)}
      lang={props.lang}
      path={props.path}
    >
      <h1>{project.name}</h1>
      <dl class="facts">
        {when ? (
          <div>
            <dt>{t("event.when")}</dt>
            <dd>
              {when} <span class="muted">{t("event.zoneTime", { zone: project.timezone })}</span>
            </dd>
          </div>
        ) : null}
        {place ? (
          <div>
            <dt>{t("event.where")}</dt>
            <dd>
              {place}
              {map ? (
                <>
                  {" "}
                  <a href={map} rel="noopener noreferrer">
                    {t("event.map")}
                    <span class="visually-hidden"> (OpenStreetMap)</span>
                  </a>
                </>
              ) : null}
            </dd>
          </div>
        ) : null}
        {project.website ? (
          <div>
            <dt>{t("event.website")}</dt>
            <dd>
              <a href={project.website} rel="noopener noreferrer nofollow">
                {project.website}
              </a>
            </dd>
          </div>
        ) : null}
      </dl>
      <Paragraphs text={project.description} />
      <Tickets content={props.content} settings={props.settings} lang={props.lang} />
      <Agenda content={props.content} words={words} />
      <Speakers content={props.content} words={words} />
      <PagerNav projectId={project.id} pager={props.pager} lang={props.lang} />
    </SiteLayout>
  );
}

/** A speaker's public page: profile and their published sessions. */
export function SpeakerPage(props: {
  content: EventContent;
  speaker: Speaker;
  url: string;
  lang: PageLanguage;
  path: string;
}) {
  const { project } = props.content;
  const { speaker } = props;
  const { words } = props.lang;
  const { t } = words;
  const sessions = props.content.sessions.filter((s) => s.speakers.some((p) => p.id === speaker.id));
  const role = [speaker.jobTitle, speaker.company].filter(Boolean).join(", ");
  const meta = {
    title: `${speaker.name} · ${project.name}`,
    description:
      summary(speaker.bio) || t("speaker.speaksAt", { speaker: speaker.name, event: project.name }),
    url: props.url,
  };
  const eventHref = inLanguage(eventPaths.page(project.id), props.lang);
  return (
    <SiteLayout
      meta={meta}
      eventName={project.name}
      eventHref={eventHref}
      lang={props.lang}
      path={props.path}
    >
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
          <h2 id="talks-heading">{t("speaker.sessions")}</h2>
          <p class="muted">{t("agenda.timesIn", { zone: project.timezone })}</p>
          <ul class="sessions">
            {sessions.map((session) => (
              <li class="session">
                <p class="when">{words.dateTime(session.startsAt, project.timezone)}</p>
                <div class="what">
                  <h3>
                    <a href={`${eventHref}#session-${session.id}`}>{session.title}</a>
                  </h3>
                  {session.room ? <p class="where">{session.room.name}</p> : null}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <p>
        <a href={eventHref}>{t("speaker.back", { event: project.name })}</a>
      </p>
    </SiteLayout>
  );
}
