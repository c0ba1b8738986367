import { badInput } from "../errors.js";
import { fromWallClock, zonedClock, zonedDay } from "../shared/time.js";
import { isCalendarDate } from "../shared/validation.js";

// The dashboard shows and edits times in the project's time zone; the services store UTC.
// `<input type="datetime-local">` sends wall-clock time without a zone, so it is converted here.

/** The `datetime-local` value (YYYY-MM-DDTHH:mm) of a UTC instant in a zone; "" for none. */
export function toLocalInput(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return "";
  return `${zonedDay(iso, timeZone)}T${zonedClock(iso, timeZone)}`;
}

/** The UTC instant of a wall-clock time in a zone (a time skipped by DST lands on the next valid one). */
export function fromLocalInput(local: string, timeZone: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local.trim());
  if (!match) return undefined;
  const [, y = 0, mo = 0, d = 0, h = 0, mi = 0] = match.map(Number);
  // Date.UTC would roll 30 February over to 2 March: an impossible date is refused, not moved.
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59) return undefined;
  return new Date(fromWallClock(Date.UTC(y, mo - 1, d, h, mi), timeZone)).toISOString();
}

/**
 * Reads optional date-time fields of a form in a zone: blank → null, unparseable → a field error
 * named after the input (all problems reported together).
 */
export function readLocalTimes<K extends string>(
  values: Record<string, string>,
  names: readonly K[],
  timeZone: string,
): Record<K, string | null> {
  const result = {} as Record<K, string | null>;
  const problems: { field: string[]; message: string }[] = [];
  for (const name of names) {
    const raw = values[name]?.trim() ?? "";
    if (!raw) {
      result[name] = null;
      continue;
    }
    const iso = fromLocalInput(raw, timeZone);
    if (iso) result[name] = iso;
    else problems.push({ field: [name], message: "must be a date and time, e.g. 2026-05-04 09:00" });
  }
  if (problems.length > 0) throw badInput(problems);
  return result;
}

// Building a DateTimeFormat costs more than formatting with it: pages that show hundreds of times
// (the agenda grid, the event page's programme) keep one per zone and style. Intl accepts any letter
// case of a zone name, so the map is capped.
const formats = new Map<string, Intl.DateTimeFormat>();

const styles = {
  dateTime: {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  },
  time: { hour: "2-digit", minute: "2-digit" },
  timeWithZone: { hour: "2-digit", minute: "2-digit", timeZoneName: "short" },
  day: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

function format(style: keyof typeof styles, iso: string, timeZone: string): string {
  const key = `${style} ${timeZone}`;
  let formatter = formats.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", { timeZone, ...styles[style] });
    if (formats.size >= 1_000) formats.clear();
    formats.set(key, formatter);
  }
  return formatter.format(new Date(iso));
}

/** A date and time for people, in the project's zone and saying it: "Mon, 4 May 2026, 09:00 CEST". */
export function formatDateTime(iso: string | null | undefined, timeZone: string): string {
  return iso ? format("dateTime", iso, timeZone) : "—";
}

/** A time of day in the zone: "09:00". */
export function formatTime(iso: string, timeZone: string): string {
  return format("time", iso, timeZone);
}

/** A time of day that says its zone, for a time standing alone: "09:12 CET", "09:12 UTC". */
export function formatTimeWithZone(iso: string, timeZone: string): string {
  return format("timeWithZone", iso, timeZone);
}

/** A calendar day in the zone: "Monday, 4 May 2026". */
export function formatDay(iso: string, timeZone: string): string {
  return format("day", iso, timeZone);
}

let zones: { value: string; label: string }[] | undefined;

/** Every IANA time zone this runtime knows, for the time-zone select. */
export function timeZoneOptions(): { value: string; label: string }[] {
  zones ??= ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")].map((z) => ({
    value: z,
    label: z.replaceAll("_", " "),
  }));
  return zones;
}
