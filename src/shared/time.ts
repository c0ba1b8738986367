/** The current time as stored in the database: ISO-8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Today's UTC day as `YYYY-MM-DD`. */
export function utcDay(date = new Date()): string {
  return date.toISOString().slice(0, 10);
}
