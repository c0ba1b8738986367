import { ICalCalendar } from "ical-generator";
import type { EventContent, EventSession } from "../modules/event-page/event-content.js";

/**
 * The published agenda as iCalendar (RFC 5545), built by ical-generator, which escapes text and
 * folds long lines. One VEVENT per session with a UID that stays the same for the session's life,
 * so a subscribed calendar (Google, Apple, Thunderbird) updates its copy instead of adding one.
 * Times are written in UTC (the RFC's "form #2"), which every client shows in its user's zone
 * without a VTIMEZONE; X-WR-TIMEZONE names the event's zone for clients that display it.
 */
export function agendaCalendar(
  content: EventContent,
  options: { baseUrl: string; sessions?: EventSession[] },
): string {
  const { project } = content;
  const pageUrl = `${options.baseUrl}/e/${project.id}`;
  const host = new URL(options.baseUrl).hostname;
  const calendar = new ICalCalendar({
    name: project.name,
    prodId: { company: "Eventgraph", product: "Event page", language: "EN" },
    url: pageUrl,
    // Clients that honour it poll hourly; the feed itself is cached by data version.
    ttl: 60 * 60,
    x: [{ key: "X-WR-TIMEZONE", value: project.timezone }],
  });
  const venue = [project.venue.name, project.venue.address, project.venue.city].filter(Boolean).join(", ");
  for (const session of options.sessions ?? content.sessions) {
    const speakers = session.speakers.map((s) => s.name).join(", ");
    calendar.createEvent({
      id: `session-${session.id}@${host}`,
      start: new Date(session.startsAt),
      end: new Date(session.endsAt),
      // The session's last change, not the time of the request: the same data gives the same bytes.
      stamp: new Date(session.updatedAt),
      lastModified: new Date(session.updatedAt),
      summary: session.title,
      description:
        [speakers ? `Speakers: ${speakers}` : "", session.description ?? ""].filter(Boolean).join("\n\n") ||
        null,
      location: [session.room?.name, venue].filter(Boolean).join(", ") || null,
      url: `${pageUrl}#session-${session.id}`,
      categories: session.track ? [{ name: session.track.name }] : [],
    });
  }
  return calendar.toString();
}
