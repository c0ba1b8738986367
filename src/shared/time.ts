/** The current time as stored in the database: ISO-8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Today's UTC day as `YYYY-MM-DD`. */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

/** The wall-clock fields of an instant in a time zone (month 1–12, hour 0–23). */
interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// Building a DateTimeFormat is slow (it loads locale data); one per zone serves every call. Zone
// names are checked where they are stored, but Intl accepts any letter case, so the map is capped.
const partFormats = new Map<string, Intl.DateTimeFormat>();

function partFormat(timeZone: string): Intl.DateTimeFormat {
  let format = partFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    if (partFormats.size >= 1_000) partFormats.clear();
    partFormats.set(timeZone, format);
  }
  return format;
}

/** The wall-clock fields of `instant` (a Date, epoch milliseconds or an ISO string) in `timeZone`. */
function zonedParts(instant: Date | number | string, timeZone: string): ZonedParts {
  const parts: Record<string, number> = {};
  for (const part of partFormat(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** The calendar day of `instant` in `timeZone`, as `YYYY-MM-DD`. */
export function zonedDay(instant: Date | number | string, timeZone: string): string {
  const p = zonedParts(instant, timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/**
 * `zonedDay` for many instants of one zone, each distinct instant computed once: a programme's
 * sessions share a few hundred start times, and each Intl call costs microseconds.
 */
export function zonedDays(timeZone: string): (iso: string) => string {
  const days = new Map<string, string>();
  return (iso) => {
    let day = days.get(iso);
    if (day === undefined) {
      day = zonedDay(iso, timeZone);
      days.set(iso, day);
    }
    return day;
  };
}

/**
 * The wall clock of many instants (epoch ms) in one zone, as `YYYY-MM-DDTHH:mm`, with two Intl
 * calls per UTC date instead of one per instant: where the zone's offset is the same at a date's
 * first and last millisecond it holds the whole date (no zone changes its offset twice in a day),
 * and the instant plus the offset is the wall clock; otherwise the instant is asked of Intl. The
 * Overview folds thousands of hours and quarter hours into days (13 ms per 1,000 one by one).
 */
export function zonedClocks(timeZone: string): (t: number) => string {
  const offsets = new Map<number, number | null>();
  return (t) => {
    const date = Math.floor(t / dayMs) * dayMs;
    let offset = offsets.get(date);
    if (offset === undefined) {
      const first = zoneOffsetMs(timeZone, date);
      offset = first === zoneOffsetMs(timeZone, date + dayMs - 1) ? first : null;
      offsets.set(date, offset);
    }
    if (offset !== null) return new Date(t + offset).toISOString().slice(0, 16);
    const p = zonedParts(t, timeZone);
    return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
  };
}

const dayMs = 86_400_000;

/** The time of day of `instant` in `timeZone`, as `HH:mm`. */
export function zonedClock(instant: Date | number | string, timeZone: string): string {
  const p = zonedParts(instant, timeZone);
  return `${pad(p.hour)}:${pad(p.minute)}`;
}

/** The offset of `timeZone` from UTC at epoch milliseconds `t` (positive east of Greenwich). */
export function zoneOffsetMs(timeZone: string, t: number): number {
  const p = zonedParts(t, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
}

/**
 * The epoch milliseconds of a wall-clock time in `timeZone`, the wall clock given as the UTC instant
 * carrying the same fields (`Date.UTC(y, m, d, h, min)`). Two passes settle the offset around a DST
 * change; a time that does not exist (skipped by DST) lands on the next valid one.
 */
export function fromWallClock(wall: number, timeZone: string): number {
  const first = wall - zoneOffsetMs(timeZone, wall);
  return wall - zoneOffsetMs(timeZone, first);
}
