import { builder } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { globalId } from "../../graphql/ids.js";
import { boundedList } from "../../graphql/limits/list-bounds.js";
import { requires } from "../../graphql/permissions.js";
import { attendeeEventTypes } from "../../shared/live/live-events.js";
import type { LiveSignal } from "../../shared/live/live-hub.js";
import type { Actor } from "../access/actor.js";
import type { Permission } from "../access/permissions.js";
import type { Session } from "../agenda/agenda.service.js";
import { SessionRef } from "../agenda/agenda-refs.graphql.js";
import { AttendeeRef } from "../attendees/attendees.graphql.js";
import type { Attendee } from "../attendees/attendees.service.js";
import {
  DoorCountRef,
  doorCountsOf,
  doorCountsPermission,
  maxDoorCounts,
} from "../checkins/door-counts.graphql.js";

/** One event about an attendee (or a session, for `sessionChanged`), as a subscription delivers it. */
interface AttendeeEvent {
  projectId: string;
  type: string;
  /** The row id of the object: an attendee's, or a session's. */
  attendeeId: string;
}

const attendeeChanges = {
  "attendee.registered": "REGISTERED",
  "attendee.updated": "UPDATED",
  "attendee.cancelled": "CANCELLED",
} as const;
const checkInChanges = { "checkin.created": "CHECKED_IN", "checkin.undone": "UNDONE" } as const;
const sessionChanges = {
  "session.created": "CREATED",
  "session.updated": "UPDATED",
  "session.deleted": "DELETED",
} as const;

/**
 * Starts listening to a project's events for the stream this subscription opened (the request's
 * id names it; graphql/streams/stream-route.ts), once the caller holds `permission` there. Each
 * change of the project's access asks again, with the caller's credentials read afresh.
 */
async function listen(
  c: GraphQLContext,
  projectId: string,
  permission: Permission,
  types: ReadonlySet<string>,
  coalesce = false,
): Promise<AsyncIterable<LiveSignal>> {
  const { access, live } = c.services;
  await access.requirePermission(c.actor, projectId, permission);
  return live.listen(c.requestId, {
    projectId,
    types,
    coalesce,
    stillAllowed: async (caller) => {
      await access.requirePermission(caller as Actor, projectId, permission);
    },
  });
}

/** The event a signal carries. */
function eventOf(signal: LiveSignal): AttendeeEvent {
  if (!signal.event) throw new Error("An event subscription got a signal without an event");
  return { projectId: signal.projectId, type: signal.event.type, attendeeId: signal.event.objectId };
}

/** Reads the attendee an event is about, as `node(id:)` does: with the caller's access now. */
async function attendeeOf(c: GraphQLContext, event: AttendeeEvent): Promise<Attendee | null> {
  const found = await c.services.attendees.findAttendee(c.actor, event.attendeeId);
  if (!found) return null;
  c.rememberAccess(found.access);
  return found.item;
}

/** Reads the session an event is about, as `node(id:)` does; null once deleted. */
async function sessionOf(c: GraphQLContext, event: AttendeeEvent): Promise<Session | null> {
  const found = await c.services.agenda.findSession(c.actor, event.attendeeId);
  if (!found) return null;
  c.rememberAccess(found.access);
  return found.item;
}

/** Defines the Subscription type: live events of attendees and check-ins, and the door's counters. */
export function defineLiveTypes(): void {
  const AttendeeChangeEnum = builder.enumType("AttendeeChange", {
    description: "What happened to an attendee.",
    values: {
      REGISTERED: { description: "Registered (attendee.registered)." },
      UPDATED: { description: "Their details changed (attendee.updated)." },
      CANCELLED: { description: "The registration was cancelled (attendee.cancelled)." },
    } as const,
  });
  const CheckInChangeEnum = builder.enumType("CheckInChange", {
    description: "What happened at the door.",
    values: {
      CHECKED_IN: { description: "The attendee was checked in (checkin.created)." },
      UNDONE: { description: "Their check-in was taken back (checkin.undone)." },
    } as const,
  });
  const AttendeeEventRef = builder.objectRef<AttendeeEvent>("AttendeeEvent").implement({
    inheritsAccess: true,
    description: "An attendee registered, changed or cancelled; read back when it is delivered.",
    fields: (t) => ({
      change: t.field({
        type: AttendeeChangeEnum,
        description: "What happened.",
        resolve: (e) => attendeeChanges[e.type as keyof typeof attendeeChanges],
      }),
      attendee: t.field({
        type: AttendeeRef,
        nullable: true,
        description: "The attendee as they are when the event is delivered; null if no longer visible.",
        resolve: (e, _args, c) => attendeeOf(c, e),
      }),
    }),
  });
  const CheckInEventRef = builder.objectRef<AttendeeEvent>("CheckInEvent").implement({
    inheritsAccess: true,
    description: "An attendee checked in, or a check-in taken back; read back when it is delivered.",
    fields: (t) => ({
      change: t.field({
        type: CheckInChangeEnum,
        description: "What happened.",
        resolve: (e) => checkInChanges[e.type as keyof typeof checkInChanges],
      }),
      attendee: t.field({
        type: AttendeeRef,
        nullable: true,
        description: "The attendee (their checkIn says since when); null if no longer visible.",
        resolve: (e, _args, c) => attendeeOf(c, e),
      }),
    }),
  });

  const SessionChangeEnum = builder.enumType("SessionChange", {
    description: "What happened to a session of the agenda.",
    values: {
      CREATED: { description: "Created (session.created)." },
      UPDATED: { description: "Changed: its time, room, status, speakers… (session.updated)." },
      DELETED: { description: "Deleted (session.deleted); `session` is then null." },
    } as const,
  });
  const SessionEventRef = builder.objectRef<AttendeeEvent>("SessionEvent").implement({
    inheritsAccess: true,
    description: "A session created, changed or deleted; read back when it is delivered.",
    fields: (t) => ({
      change: t.field({
        type: SessionChangeEnum,
        description: "What happened.",
        resolve: (e) => sessionChanges[e.type as keyof typeof sessionChanges],
      }),
      sessionId: t.id({
        description: "Global id of the session (a deleted one too).",
        resolve: (e) => globalId("Session", e.attendeeId),
      }),
      session: t.field({
        type: SessionRef,
        nullable: true,
        description: "The session as it is when the event is delivered; null once deleted.",
        resolve: (e, _args, c) => sessionOf(c, e),
      }),
    }),
  });

  builder.subscriptionType({
    description: `Live events over Server-Sent Events (POST /api/graphql/stream, the GraphQL over SSE protocol). Each field needs what the matching query needs; a stream ends when that access ends.`,
    fields: (t) => ({
      attendeeChanged: t.field({
        ...requires("attendees:read"),
        type: AttendeeEventRef,
        nullable: true,
        description: "Each attendee registered, updated or cancelled in the project, after its commit.",
        args: { projectId: t.arg.id({ required: true, description: "The 4-character Project ID." }) },
        subscribe: (_root, args, c) =>
          listen(c, String(args.projectId), "attendees:read", new Set(Object.keys(attendeeChanges))),
        resolve: (signal: LiveSignal) => eventOf(signal),
      }),
      checkInChanged: t.field({
        ...requires("attendees:read"),
        type: CheckInEventRef,
        nullable: true,
        description: "Each check-in made or undone in the project, after its commit.",
        args: { projectId: t.arg.id({ required: true, description: "The 4-character Project ID." }) },
        subscribe: (_root, args, c) =>
          listen(c, String(args.projectId), "attendees:read", new Set(Object.keys(checkInChanges))),
        resolve: (signal: LiveSignal) => eventOf(signal),
      }),
      sessionChanged: t.field({
        ...requires("agenda:read"),
        type: SessionEventRef,
        nullable: true,
        description:
          "Each session created, changed or deleted in the project, drafts included, after its commit (as the session.* webhooks).",
        args: { projectId: t.arg.id({ required: true, description: "The 4-character Project ID." }) },
        subscribe: (_root, args, c) =>
          listen(c, String(args.projectId), "agenda:read", new Set(Object.keys(sessionChanges))),
        resolve: (signal: LiveSignal) => eventOf(signal),
      }),
      doorCounts: t.field({
        extensions: {
          ...requires(doorCountsPermission).extensions,
          ...boundedList(maxDoorCounts).extensions,
        },
        type: [DoorCountRef],
        nullable: true,
        description:
          "The project's door counts (as Project.doorCounts) at once, then again after each registration, cancellation or check-in; a burst is one update.",
        args: { projectId: t.arg.id({ required: true, description: "The 4-character Project ID." }) },
        subscribe: (_root, args, c) =>
          listen(c, String(args.projectId), doorCountsPermission, attendeeEventTypes, true),
        resolve: (signal: LiveSignal, _args, c) => doorCountsOf(c, signal.projectId),
      }),
    }),
  });
}
