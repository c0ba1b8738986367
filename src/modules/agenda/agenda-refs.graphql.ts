import { builder } from "../../graphql/builder.js";
import type { Room, Session, Speaker, Track } from "./agenda.service.js";

// The agenda's GraphQL types, shared by its object definitions and its mutations.

/** The Session object type. */
export const SessionRef = builder.objectRef<Session>("Session");
/** The Speaker object type. */
export const SpeakerRef = builder.objectRef<Speaker>("Speaker");
/** The Track object type. */
export const TrackRef = builder.objectRef<Track>("Track");
/** The Room object type. */
export const RoomRef = builder.objectRef<Room>("Room");

/** The SessionStatus enum. */
export const SessionStatusEnum = builder.enumType("SessionStatus", {
  description: "Where a session stands. Only PUBLISHED sessions are public.",
  values: {
    DRAFT: { description: "Being prepared; needs agenda:read to be seen." },
    PUBLISHED: { description: "On the public agenda." },
    CANCELLED: { description: "Called off; needs agenda:read to be seen." },
  } as const,
});
