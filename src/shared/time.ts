/** The current time as stored in the database: ISO-8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Normalizes any accepted date-time text to the stored form; undefined when it is not a date. */
export function toIso(value: string): string | undefined {
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** Today's UTC day as `YYYY-MM-DD`. */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}
