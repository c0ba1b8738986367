import type { Insertable } from "kysely";
import type {
  AttendeesTable,
  CheckInsTable,
  RoomsTable,
  SessionSpeakersTable,
  SessionStatus,
  SessionsTable,
  SpeakersTable,
  TicketTypesTable,
  TracksTable,
} from "../../db/schema.js";
import { newId } from "../../shared/ids.js";
import { fromWallClock, zoneOffsetMs } from "../../shared/time.js";
import { generateTicketCode } from "../attendees/ticket-code.js";
import type { CreateProjectInput } from "../projects/projects.service.js";
import * as words from "./demo.words.js";

/** What to generate: `scale` multiplies sessions, speakers, rooms and attendees. */
export interface DemoOptions {
  scale: number;
  /** The same seed (and `now`) gives the same conference. */
  seed: number;
  /** The conference runs from yesterday to tomorrow relative to this instant, so it is always live. */
  now: Date;
}

/** Every row of a demo conference, ready for the bulk inserts. */
export interface DemoDataset {
  tracks: Insertable<TracksTable>[];
  rooms: Insertable<RoomsTable>[];
  speakers: Insertable<SpeakersTable>[];
  sessions: Insertable<SessionsTable>[];
  sessionSpeakers: Insertable<SessionSpeakersTable>[];
  ticketTypes: Insertable<TicketTypesTable>[];
  attendees: Insertable<AttendeesTable>[];
  checkIns: Insertable<CheckInsTable>[];
}

/**
 * The demo conference's time zone: its sessions are laid out on Berlin wall-clock times.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export const demoTimeZone = "Europe/Berlin";
const days = 3;
// Local start minutes of the 45-minute slots of a conference day, with breaks and lunch between.
const slotStarts = [9 * 60, 10 * 60, 11 * 60 + 15, 13 * 60 + 30, 14 * 60 + 30, 15 * 60 + 45, 17 * 60];
const slotMinutes = 45;
const dayMs = 86_400_000;

/** mulberry32: a tiny, fast PRNG; good enough for fake data and reproducible from one number. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

type Random = ReturnType<typeof createRandom>;

/**
 * The UTC instant of a wall-clock time (`minutes` after local midnight of `localDay`) in a zone.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export function zonedTime(localDay: number, minutes: number, timeZone: string): number {
  // `localDay` is the UTC midnight carrying the local date.
  return fromWallClock(localDay + minutes * 60_000, timeZone);
}

function localMidnight(now: Date, timeZone: string): number {
  const local = now.getTime() + zoneOffsetMs(timeZone, now.getTime());
  return Math.floor(local / dayMs) * dayMs;
}

const iso = (t: number) => new Date(t).toISOString();
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const slugs = new Map<string, string>();
// Names come from short lists, so each slug is computed once.
const slug = (s: string) => {
  let value = slugs.get(s);
  if (value === undefined) {
    value = s
      .normalize("NFKD")
      .replace(/[^\w\s-]/g, "")
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, "-");
    slugs.set(s, value);
  }
  return value;
};

function personName(random: Random): { first: string; last: string } {
  return { first: random.pick(words.firstNames), last: random.pick(words.lastNames) };
}

/** The demo project's fields: a published conference running from yesterday to tomorrow. */
export function demoProjectInput(now: Date): CreateProjectInput {
  const firstDay = localMidnight(now, demoTimeZone) - dayMs;
  const conferenceStart = zonedTime(firstDay, 8 * 60, demoTimeZone);
  const conferenceEnd = zonedTime(firstDay + (days - 1) * dayMs, 18 * 60 + 30, demoTimeZone);
  const year = new Date(conferenceStart).getUTCFullYear();
  return {
    name: `Northwind DevDays ${year}`,
    description:
      "Three days of talks and workshops on building and running software: frontend, APIs, data, " +
      "cloud, security and product. This is Eventgraph's demo conference; every name in it is invented.",
    timezone: demoTimeZone,
    startsAt: iso(conferenceStart),
    endsAt: iso(conferenceEnd),
    venue: { name: "Kulturbrauerei", address: "Schönhauser Allee 36", city: "Berlin", country: "DE" },
    website: "https://devdays.example.com",
    status: "PUBLISHED",
  };
}

// The index whose cumulative share first exceeds `roll` (0 ≤ roll < 1).
function pickShare(items: readonly { share: number }[], roll: number): number {
  let total = 0;
  for (const [index, item] of items.entries()) {
    total += item.share;
    if (roll < total) return index;
  }
  return items.length - 1;
}

/** Builds the whole conference in memory; the ids are fresh, everything else follows the seed. */
export function generateDemo(projectId: string, organizerId: string, options: DemoOptions): DemoDataset {
  const random = createRandom(options.seed);
  const { scale } = options;
  const now = options.now.getTime();
  const firstDay = localMidnight(options.now, demoTimeZone) - dayMs;
  // Only a few hundred distinct wall-clock times occur; converting each once keeps ×100 fast.
  const times = new Map<number, number>();
  const at = (day: number, minutes: number) => {
    const key = day * 1440 + minutes;
    let time = times.get(key);
    if (time === undefined) {
      time = zonedTime(firstDay + day * dayMs, minutes, demoTimeZone);
      times.set(key, time);
    }
    return time;
  };
  const created = iso(now);

  const tracks = words.tracks.map((track) => ({
    id: newId(),
    project_id: projectId,
    name: track.name,
    color: track.color,
    created_at: created,
  }));

  const sessionCount = 60 * scale;
  const roomCount = Math.ceil(sessionCount / (days * slotStarts.length));
  const rooms = Array.from({ length: roomCount }, (_, i) => ({
    id: newId(),
    project_id: projectId,
    name: words.roomNames[i] ?? `Room ${101 + i - words.roomNames.length}`,
    capacity: i === 0 ? 800 : random.int(4, 30) * 10,
    created_at: created,
  }));

  const speakers = Array.from({ length: 80 * scale }, () => {
    const { first, last } = personName(random);
    const company = random.pick(words.companies);
    const jobTitle = random.pick(words.jobTitles);
    const topic = random.pick(random.pick(words.tracks).topics);
    const handle = slug(`${first}-${last}`);
    return {
      id: newId(),
      project_id: projectId,
      name: `${first} ${last}`,
      bio: `${first} is ${/^[AEIOU]/.test(jobTitle) ? "an" : "a"} ${jobTitle} at ${company}, working on ${topic}. ${random.pick(words.descriptionSentences)}`,
      company,
      job_title: jobTitle,
      photo_url: null,
      links: JSON.stringify([
        { label: "Website", url: `https://${handle}.example.com` },
        { label: "Mastodon", url: `https://mastodon.example/@${handle}` },
      ]),
      created_at: created,
      updated_at: created,
    };
  });

  const sessions: Insertable<SessionsTable>[] = [];
  for (let day = 0; day < days && sessions.length < sessionCount; day++) {
    for (const slot of slotStarts) {
      for (const room of rooms) {
        if (sessions.length >= sessionCount) break;
        const trackIndex = random.int(0, tracks.length - 1);
        const topics = words.tracks[trackIndex]?.topics ?? [];
        const topic = random.pick(topics);
        const other = random.pick(topics.filter((t) => t !== topic));
        const keynote = room === rooms[0] && slot === slotStarts[0];
        const title = random
          .pick(words.titleTemplates)
          .replace("{T}", capitalize(topic))
          .replace("{t}", topic)
          .replace("{u}", other);
        const roll = random.next();
        const status: SessionStatus = roll < 0.05 ? "DRAFT" : roll < 0.1 ? "CANCELLED" : "PUBLISHED";
        sessions.push({
          id: newId(),
          project_id: projectId,
          title: keynote ? `Keynote: ${title}` : title,
          description: `${random.pick(words.descriptionSentences)} ${random.pick(words.descriptionSentences)}`,
          starts_at: iso(at(day, slot)),
          ends_at: iso(at(day, slot + slotMinutes)),
          room_id: room.id,
          track_id: tracks[trackIndex]?.id ?? null,
          capacity: room.capacity,
          status,
          created_at: created,
          updated_at: created,
        });
      }
    }
  }

  // Every speaker gets a session (dealt round-robin), then sessions are filled up to 1–3 speakers.
  const speakersBySession = sessions.map(() => new Set<string>());
  for (const [i, speaker] of speakers.entries()) speakersBySession[i % sessions.length]?.add(speaker.id);
  for (const set of speakersBySession) {
    const wanted = Math.max(set.size, random.chance(0.6) ? 1 : random.chance(0.75) ? 2 : 3);
    while (set.size < Math.min(wanted, 3)) set.add(random.pick(speakers).id);
  }
  const sessionSpeakers = sessions.flatMap((session, i) =>
    [...(speakersBySession[i] ?? [])].map((speakerId, position) => ({
      session_id: session.id,
      speaker_id: speakerId,
      position,
    })),
  );

  const ticketSpecs = [
    {
      name: "Early Bird",
      price: 29_900,
      share: 0.3,
      opens: -150,
      closes: -90,
      description: "All three days, for the quick.",
    },
    { name: "Regular", price: 49_900, share: 0.45, opens: -90, closes: days, description: "All three days." },
    {
      name: "Student",
      price: 9_900,
      share: 0.15,
      opens: -90,
      closes: days,
      description: "All three days; bring a valid student ID.",
    },
    {
      name: "Workshop Day",
      price: 19_900,
      share: 0.08,
      opens: -60,
      closes: days - 1,
      description: "The hands-on workshops on the last day.",
    },
    {
      name: "Group (5+)",
      price: 39_900,
      share: 0.02,
      opens: -120,
      closes: -30,
      description: "Per person, for teams of five or more.",
    },
  ];
  const attendeeCount = 2000 * scale;
  const ticketIds = ticketSpecs.map(() => newId());
  const sold = ticketSpecs.map(() => 0);
  const attendees: Insertable<AttendeesTable>[] = [];
  const checkIns: Insertable<CheckInsTable>[] = [];
  for (let i = 0; i < attendeeCount; i++) {
    const kind = pickShare(ticketSpecs, random.next());
    const spec = ticketSpecs[kind];
    if (!spec) continue;
    const opens = firstDay + spec.opens * dayMs;
    const closes = Math.min(now, firstDay + spec.closes * dayMs);
    const registered = opens + Math.floor(random.next() * (closes - opens));
    const cancelled = random.chance(0.05);
    const { first, last } = personName(random);
    const company = random.chance(0.7) ? random.pick(words.companies) : null;
    // The running number keeps emails unique, as one registration per email and project requires.
    const email = `${slug(first)}.${slug(last)}.${i + 1}@${company ? `${slug(company)}.example` : "mail.example"}`;
    const id = newId();
    attendees.push({
      id,
      project_id: projectId,
      ticket_type_id: ticketIds[kind] ?? "",
      name: `${first} ${last}`,
      email,
      email_normalized: email.toLowerCase(),
      company,
      status: cancelled ? "CANCELLED" : "REGISTERED",
      registered_at: iso(registered),
      cancelled_at: cancelled ? iso(registered + Math.floor(random.next() * (now - registered))) : null,
      updated_at: iso(registered),
      // Like ids, codes come from the CSPRNG, not the seed: seeding twice must not collide.
      ticket_code: generateTicketCode(),
    });
    if (cancelled) continue;
    sold[kind] = (sold[kind] ?? 0) + 1;
    // About 40% of all attendees came through the doors on the first morning.
    if (random.chance(0.42)) {
      checkIns.push({
        id: newId(),
        project_id: projectId,
        attendee_id: id,
        checked_in_at: iso(at(0, 8 * 60 + random.int(0, 150))),
        by_user_id: organizerId,
        by_app_id: null,
        undone_at: null,
      });
    }
  }

  const ticketTypes = ticketSpecs.map((spec, i) => {
    const count = sold[i] ?? 0;
    return {
      id: ticketIds[i] ?? "",
      project_id: projectId,
      name: spec.name,
      description: spec.description,
      price_minor: spec.price,
      currency: "EUR",
      // The early bird sold out; the others keep some room.
      quantity: i === 0 ? count : Math.ceil((count * 1.2) / 10) * 10 + 10,
      sales_start_at: iso(firstDay + spec.opens * dayMs),
      sales_end_at: iso(firstDay + spec.closes * dayMs),
      created_at: iso(firstDay - 160 * dayMs),
      updated_at: iso(firstDay - 160 * dayMs),
    };
  });

  return { tracks, rooms, speakers, sessions, sessionSpeakers, ticketTypes, attendees, checkIns };
}
