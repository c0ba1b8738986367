/**
 * Plain (unpaged) list fields of objects declare the most items they return, so the cost analysis
 * can multiply their subtree by it (analyze-operation.ts); their resolvers cut the list to the same
 * bound, so the declaration is a promise the server keeps rather than a guess about the data.
 */

/** Field options declaring a list of at most `maxItems` objects (spread into a Pothos field). */
export function boundedList(maxItems: number) {
  return { extensions: { cost: { maxItems } } };
}

/** The first `maxItems` items: what a `boundedList(maxItems)` field's resolver returns. */
export function atMost<T>(items: readonly T[], maxItems: number): T[] {
  return items.length > maxItems ? items.slice(0, maxItems) : [...items];
}

/** Session.speakers: a session lists at most this many speakers (the input refuses more). */
export const maxSpeakersPerSession = 50;
/** Speaker.sessions: the first sessions of a speaker by start time. */
export const maxSessionsPerSpeaker = 100;
/** Speaker.links: the input refuses more. */
export const maxLinksPerSpeaker = 20;
/** Attendee.checkIns: the most recent check-ins, oldest first. */
export const maxCheckInsListed = 100;
/** `userErrors` of a mutation payload. */
export const maxUserErrors = 50;
