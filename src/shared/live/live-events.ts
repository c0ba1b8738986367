// Imports nothing of the database: the change feed (db/change-feed.ts) decodes these payloads.

/** A committed change a live screen follows: what happened to which object of which project. */
export interface LiveEvent {
  projectId: string;
  /** A type of the event catalogue (`checkin.created`, `attendee.cancelled`). */
  type: string;
  /** The row id of the object: an attendee, or a session for `session.*`. */
  objectId: string;
}

/** The event types about attendees (a check-in event names the attendee checked in): counters move with them. */
export const attendeeEventTypes: ReadonlySet<string> = new Set([
  "attendee.registered",
  "attendee.updated",
  "attendee.cancelled",
  "checkin.created",
  "checkin.undone",
]);

/** The event types subscriptions carry: the attendees' and the sessions'. */
export const liveEventTypes: ReadonlySet<string> = new Set([
  ...attendeeEventTypes,
  "session.created",
  "session.updated",
  "session.deleted",
]);

/**
 * What marks a live event on the change feed's channel (db/change-feed.ts), before
 * `<project> <type> <object id>`; project changes are `<project>:<areas>` and fences `fence:…`.
 */
const livePrefix = "live:";

/** The notification payload of an event (ids and type names hold no spaces). */
export function encodeLiveEvent(event: LiveEvent): string {
  return `${livePrefix}${event.projectId} ${event.type} ${event.objectId}`;
}

/** The event of a payload, or undefined for anything else. */
export function decodeLiveEvent(payload: string): LiveEvent | undefined {
  if (!payload.startsWith(livePrefix)) return undefined;
  const [projectId, type, objectId] = payload.slice(livePrefix.length).split(" ");
  if (!projectId || !type || !objectId || !liveEventTypes.has(type)) return undefined;
  return { projectId, type, objectId };
}
