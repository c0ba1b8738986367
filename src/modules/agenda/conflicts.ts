import { type Page, type PageWindow, resolvePageArgs } from "../../shared/pagination.js";
import { fromWallClock, zonedDays } from "../../shared/time.js";
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

/** Each clash of `group`'s sessions (sorted by start) with the ones before them still running. */
function overlappingPairs(
  group: readonly Session[],
  onPair: (session: Session, other: Session) => void,
): void {
  let open: Session[] = [];
  for (const session of group) {
    open = open.filter((o) => o.endsAt > session.startsAt);
    for (const other of open) onPair(session, other);
    open.push(session);
  }
}

/** `items` grouped by `keysOf` each, in their order. */
function groupBy<T, V>(items: readonly T[], keysOf: (item: T) => Iterable<V>): Map<V, T[]> {
  const groups = new Map<V, T[]>();
  for (const item of items) {
    for (const key of keysOf(item)) {
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
  }
  return groups;
}

/**
 * The conflicts among `sessions` (cancelled ones never conflict): two sessions overlapping in one
 * room, a speaker in two overlapping sessions, a session on a day outside the event's dates.
 * Sessions that only touch (one ends when the next starts) do not overlap. A sweep in start order
 * per room and per speaker: O(n log n) plus the overlapping pairs of one room or speaker (a sweep
 * over all sessions compared each with every session running at once in any room, 0.3 s for the
 * 2,000 sessions of 286 rooms).
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
  const dayOf = zonedDays(event.timezone);
  const firstDay = event.startsAt ? dayOf(event.startsAt) : undefined;
  const lastDay = event.endsAt ? dayOf(event.endsAt) : undefined;
  for (const session of live) {
    const starts = dayOf(session.startsAt);
    // An end at midnight belongs to the day before.
    const ends = dayOf(new Date(Date.parse(session.endsAt) - 1).toISOString());
    if ((firstDay && starts < firstDay) || (lastDay && ends > lastDay)) {
      conflicts.push({
        kind: "OUTSIDE_EVENT_DATES",
        sessionId: session.id,
        message: `“${session.title}” is outside the event's dates (${firstDay ?? "…"} to ${lastDay ?? "…"}).`,
      });
    }
  }
  const both = (session: Session, other: Session) =>
    [
      [session, other],
      [other, session],
    ] as const;
  for (const [roomId, group] of groupBy(live, (s) => (s.roomId ? [s.roomId] : []))) {
    const room = roomNames.get(roomId) ?? "the same room";
    overlappingPairs(group, (session, other) => {
      for (const [a, b] of both(session, other)) {
        conflicts.push({
          kind: "ROOM_DOUBLE_BOOKED",
          sessionId: a.id,
          otherSessionId: b.id,
          message: `“${a.title}” and “${b.title}” overlap in ${room}.`,
        });
      }
    });
  }
  const speakers = new Map<string, Pick<Speaker, "id" | "name">>();
  const bySpeaker = groupBy(live, (s) =>
    (speakersBySession.get(s.id) ?? []).map((speaker) => {
      speakers.set(speaker.id, speaker);
      return speaker.id;
    }),
  );
  for (const [speakerId, group] of bySpeaker) {
    const name = speakers.get(speakerId)?.name ?? "";
    overlappingPairs(group, (session, other) => {
      for (const [a, b] of both(session, other)) {
        conflicts.push({
          kind: "SPEAKER_DOUBLE_BOOKED",
          sessionId: a.id,
          otherSessionId: b.id,
          speakerId,
          message: `${name} speaks in “${a.title}” and “${b.title}” at the same time.`,
        });
      }
    });
  }
  return conflicts;
}

// The most sessions a project's conflicts are computed over (20 pages of 100): a bound on the work
// of one dashboard page, far above a real conference's programme.
const maxSessions = 2_000;

/** What one page of the agenda grid shows: a day's sessions in some rooms (see `loadAgendaDay`). */
interface AgendaDayQuery {
  /** `YYYY-MM-DD` in the event's zone; the first day with sessions when missing or without any. */
  day?: string | undefined;
  roomIds: readonly string[];
  /** Whether sessions without a room are on the page. */
  noRoom: boolean;
}

// The most sessions one grid page reads of its rooms' day; the page renders fewer (agenda-grid.tsx).
const maxDaySessions = 2_000;
const liveStatuses = ["DRAFT", "PUBLISHED"] as const;

/** Loads what the rules need, through the agenda service's own access-checked reads. */
export function createConflictsService(agenda: {
  listSessions(
    access: ProjectAccess,
    filter: { statuses: ("DRAFT" | "PUBLISHED")[] },
    window: PageWindow,
  ): Promise<Page<Session>>;
  sessionStarts(access: ProjectAccess): Promise<string[]>;
  sessionsOverlapping(
    access: ProjectAccess,
    where: { from: string; to: string; roomIds: readonly string[]; noRoom: boolean },
    limit: number,
  ): Promise<Session[]>;
  speakersBySessionIds(ids: readonly string[]): Promise<Map<string, Speaker[]>>;
  sessionsBySpeakerIds(
    ids: readonly string[],
    options: { statuses: readonly ("DRAFT" | "PUBLISHED")[] },
  ): Promise<Map<string, Session[]>>;
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
        { statuses: [...liveStatuses] },
        resolvePageArgs({ first: 100, after }),
      );
      sessions.push(...page.items);
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    const speakersBySession = await agenda.speakersBySessionIds(sessions.map((s) => s.id));
    return findConflicts(sessions, speakersBySession, event, roomNames);
  }
  return {
    /**
     * The days that have draft or published sessions, and of one of them (`query.day`, else the
     * first) the sessions starting that day in the rooms asked, their speakers, and the conflicts
     * they are in: with the other sessions of their rooms and of their speakers, whatever the room or
     * day. Reads one day of some rooms, not the programme: a page's work does not grow with it.
     */
    async loadAgendaDay(
      access: ProjectAccess,
      event: EventDates,
      query: AgendaDayQuery,
      roomNames?: ReadonlyMap<string, string>,
    ) {
      const dayOf = zonedDays(event.timezone);
      const days = [...new Set((await agenda.sessionStarts(access)).map(dayOf))];
      const day = query.day && days.includes(query.day) ? query.day : days[0];
      if (!day)
        return { days, day, sessions: [], speakersBySession: new Map<string, Speaker[]>(), conflicts: [] };
      const [year = 0, month = 1, date = 1] = day.split("-").map(Number);
      const from = new Date(fromWallClock(Date.UTC(year, month - 1, date), event.timezone)).toISOString();
      const to = new Date(fromWallClock(Date.UTC(year, month - 1, date + 1), event.timezone)).toISOString();
      const running = await agenda.sessionsOverlapping(
        access,
        { from, to, roomIds: query.roomIds, noRoom: query.noRoom },
        maxDaySessions,
      );
      const speakersBySession = await agenda.speakersBySessionIds(running.map((s) => s.id));
      // A speaker's clash may be with a session of a room on another page: their sessions of the day.
      const speakers = new Map([...speakersBySession.values()].flat().map((s) => [s.id, s]));
      const bySpeaker = await agenda.sessionsBySpeakerIds([...speakers.keys()], { statuses: liveStatuses });
      const considered = new Map(running.map((s) => [s.id, s]));
      const speakersOf = new Map([...speakersBySession].map(([id, list]) => [id, [...list]]));
      for (const [speakerId, sessions] of bySpeaker) {
        const speaker = speakers.get(speakerId);
        for (const session of sessions) {
          if (considered.has(session.id) || session.startsAt >= to || session.endsAt <= from || !speaker)
            continue;
          considered.set(session.id, session);
          const list = speakersOf.get(session.id);
          if (list) list.push(speaker);
          else speakersOf.set(session.id, [speaker]);
        }
      }
      return {
        days,
        day,
        sessions: running.filter((s) => dayOf(s.startsAt) === day),
        speakersBySession,
        conflicts: findConflicts([...considered.values()], speakersOf, event, roomNames),
      };
    },
    /** Every conflict of the project's draft and published sessions (needs agenda:read). */
    async agendaConflicts(
      access: ProjectAccess,
      event: EventDates,
      roomNames?: ReadonlyMap<string, string>,
    ): Promise<Conflict[]> {
      return loadAgenda(access, event, roomNames);
    },
  };
}
