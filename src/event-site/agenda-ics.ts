import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { EventContent, EventSession } from "../modules/event-page/event-content.js";

/** Sessions written between two yields to the event loop. */
const sessionsPerTurn = 100;

// RFC 5545 §3.3.11: a TEXT value escapes backslash, semicolon, comma and line breaks.
function text(value: string): string {
  return value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, "\\n");
}

// §3.3.5 form #2 (UTC): 20261005T083000Z.
function utc(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;
}

/**
 * §3.1: content lines are folded at 75 octets, never inside a character. Counted from the UTF-16
 * code units directly (a new TextEncoder per character, as ical-generator 10 did, took 2 s of event
 * loop for a 1,000-session feed).
 */
function fold(line: string): string {
  let out = "";
  let octets = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    const surrogatePair = code >= 0xd800 && code <= 0xdbff && i + 1 < line.length;
    const char = surrogatePair ? line.slice(i, i + 2) : line[i];
    const size = surrogatePair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (surrogatePair) i++;
    if (octets + size > 75) {
      out += "\r\n ";
      octets = 1;
    }
    out += char;
    octets += size;
  }
  return out;
}

/**
 * The published agenda as iCalendar (RFC 5545). One VEVENT per session with a UID that stays the
 * same for the session's life, so a subscribed calendar (Google, Apple, Thunderbird) updates its
 * copy instead of adding one. Times are written in UTC (the RFC's "form #2"), which every client
 * shows in its user's zone without a VTIMEZONE; X-WR-TIMEZONE names the event's zone for clients
 * that display it. Written a hundred sessions per event-loop turn, so a long agenda never holds
 * the loop.
 */
export async function agendaCalendar(
  content: EventContent,
  options: { baseUrl: string; sessions?: EventSession[] },
): Promise<string> {
  const { project } = content;
  const pageUrl = `${options.baseUrl}/e/${project.id}`;
  const host = new URL(options.baseUrl).hostname;
  const venue = [project.venue.name, project.venue.address, project.venue.city].filter(Boolean).join(", ");
  // Each line is folded as it is added, so the folding too is spread over the loop's turns.
  const lines: string[] = [];
  const add = (...added: string[]) => {
    for (const line of added) lines.push(fold(line));
  };
  add(
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Eventgraph//Event page//EN",
    `URL:${pageUrl}`,
    `NAME:${text(project.name)}`,
    `X-WR-CALNAME:${text(project.name)}`,
    // Clients that honour it poll hourly; the feed itself is cached by data version.
    "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
    "X-PUBLISHED-TTL:PT1H",
    `X-WR-TIMEZONE:${text(project.timezone)}`,
  );
  const sessions = options.sessions ?? content.sessions;
  for (let i = 0; i < sessions.length; i++) {
    if (i > 0 && i % sessionsPerTurn === 0) await yieldToLoop();
    const session = sessions[i] as EventSession;
    const speakers = session.speakers.map((s) => s.name).join(", ");
    const description = [speakers ? `Speakers: ${speakers}` : "", session.description ?? ""]
      .filter(Boolean)
      .join("\n\n");
    const location = [session.room?.name, venue].filter(Boolean).join(", ");
    add(
      "BEGIN:VEVENT",
      `UID:session-${session.id}@${host}`,
      "SEQUENCE:0",
      // The session's last change, not the time of the request: the same data gives the same bytes.
      `DTSTAMP:${utc(session.updatedAt)}`,
      `DTSTART:${utc(session.startsAt)}`,
      `DTEND:${utc(session.endsAt)}`,
      `SUMMARY:${text(session.title)}`,
    );
    if (location) add(`LOCATION:${text(location)}`);
    if (description) add(`DESCRIPTION:${text(description)}`);
    if (session.track) add(`CATEGORIES:${text(session.track.name)}`);
    add(
      `URL;VALUE=URI:${pageUrl}#session-${session.id}`,
      `LAST-MODIFIED:${utc(session.updatedAt)}`,
      "END:VEVENT",
    );
  }
  add("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}
