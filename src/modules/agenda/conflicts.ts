import { type Page, type PageWindow, resolvePageArgs } from "../../shared/pagination.js";
import { zonedDay } from "../../shared/time.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { Session, Speaker } from "./agenda.model.js";

/**
 * Agenda conflicts: the one place their rules live. They are warnings, never refusals (Sessionize,
 * pretalx): a draft agenda is full of them while it is being built, and an organizer may mean a
 * double booking (a panel split over two rooms).
 */
type ConflictKind = "ROOM_DOUBLE_BOOKED" | "SPEAKER_DOUBLE_BOOKED" | "OUTSIDE_EVENT_DATES";

/** One conflict of one session (a clash between two sessions is reported for each of them). */
export interface Conflict {
  kind: ConflictKind;
  sessionId: string;
  /** The other session of a clash. */
  otherSessionId?: string;
  /** The speaker of a speaker clash. */
  speakerId?: string;
  /** A sentence for the organizer. */
  message: string;
}

/** The event's dates and zone: "outside the dates" is judged by calendar day in that zone. */
export interface EventDates {
  startsAt: string | null;
  endsAt: string | null;
  timezone: string;
}

/**
 * The conflicts among `sessions` (cancelled ones never conflict): two sessions overlapping in one
 * room, a speaker in two overlapping sessions, a session on a day outside the event's dates.
 * Sessions that only touch (one ends when the next starts) do not overlap. A sweep in start order:
 * O(n log n) plus the overlapping pairs.
 */
function findConflicts(
  sessions: readonly Session[],
  speakersBySession: ReadonlyMap<string, readonly Pick<Speaker, "id" | "name">[]>,
  event: EventDates,
  roomNames: ReadonlyMap<string, string> = new Map(),
): Conflict[] {
  const live = sessions
    .filter((s) => s.status !== "CANCELLED")
    .sort((a, b) => (a.startsAt < b.startsAt ? -1 : 1));
  const conflicts: Conflict[] = [];
  const firstDay = event.startsAt ? zonedDay(event.startsAt, event.timezone) : undefined;
  const lastDay = event.endsAt ? zonedDay(event.endsAt, event.timezone) : undefined;
  for (const session of live) {
    const starts = zonedDay(session.startsAt, event.timezone);
    // An end at midnight belongs to the day before.
    const ends = zonedDay(new Date(Date.parse(session.endsAt) - 1).toISOString(), event.timezone);
    if ((firstDay && starts < firstDay) || (lastDay && ends > lastDay)) {
      conflicts.push({
        kind: "OUTSIDE_EVENT_DATES",
        sessionId: session.id,
        message: `“${session.title}” is outside the event's dates (${firstDay ?? "…"} to ${lastDay ?? "…"}).`,
      });
    }
  }
  // Sessions still running at the current start time; each new one is compared with them only.
  let open: Session[] = [];
  for (const session of live) {
    open = open.filter((o) => o.endsAt > session.startsAt);
    for (const other of open) {
      if (session.roomId && session.roomId === other.roomId) {
        const room = roomNames.get(session.roomId) ?? "the same room";
        for (const [a, b] of [
          [session, other],
          [other, session],
        ] as const) {
          conflicts.push({
            kind: "ROOM_DOUBLE_BOOKED",
            sessionId: a.id,
            otherSessionId: b.id,
            message: `“${a.title}” and “${b.title}” overlap in ${room}.`,
          });
        }
      }
      const otherSpeakers = new Set((speakersBySession.get(other.id) ?? []).map((s) => s.id));
      for (const speaker of speakersBySession.get(session.id) ?? []) {
        if (!otherSpeakers.has(speaker.id)) continue;
        for (const [a, b] of [
          [session, other],
          [other, session],
        ] as const) {
          conflicts.push({
            kind: "SPEAKER_DOUBLE_BOOKED",
            sessionId: a.id,
            otherSessionId: b.id,
            speakerId: speaker.id,
            message: `${speaker.name} speaks in “${a.title}” and “${b.title}” at the same time.`,
          });
        }
      }
    }
    open.push(session);
  }
  return conflicts;
}

// The most sessions a project's conflicts are computed over (20 pages of 100): a bound on the work
// of one dashboard page, far above a real conference's programme.
const maxSessions = 2_000;

/** Loads what the rules need, through the agenda service's own access-checked reads. */
export function createConflictsService(agenda: {
  listSessions(
    access: ProjectAccess,
    filter: { statuses: ("DRAFT" | "PUBLISHED")[] },
    window: PageWindow,
  ): Promise<Page<Session>>;
  speakersBySessionIds(ids: readonly string[]): Promise<Map<string, Speaker[]>>;
}) {
  /** The draft and published sessions (up to 2,000, by start), their speakers, and their conflicts. */
  async function loadAgenda(
    access: ProjectAccess,
    event: EventDates,
    roomNames?: ReadonlyMap<string, string>,
  ) {
    const sessions: Session[] = [];
    let after: string | null = null;
    while (sessions.length < maxSessions) {
      const page = await agenda.listSessions(
        access,
        { statuses: ["DRAFT", "PUBLISHED"] },
        resolvePageArgs({ first: 100, after }),
      );
      sessions.push(...page.items);
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    const speakersBySession = await agenda.speakersBySessionIds(sessions.map((s) => s.id));
    return {
      sessions,
      speakersBySession,
      conflicts: findConflicts(sessions, speakersBySession, event, roomNames),
    };
  }
  return {
    loadAgenda,
    /** Every conflict of the project's draft and published sessions (needs agenda:read). */
    async agendaConflicts(
      access: ProjectAccess,
      event: EventDates,
      roomNames?: ReadonlyMap<string, string>,
    ): Promise<Conflict[]> {
      return (await loadAgenda(access, event, roomNames)).conflicts;
    },
  };
}
