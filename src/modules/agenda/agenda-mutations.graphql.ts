import { builder, type InputFields } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { optionalLocal, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import { serviceInput } from "../../graphql/inputs.js";
import { payloadType, runMutation } from "../../graphql/mutations.js";
import { requires } from "../../graphql/permissions.js";
import { RoomRef, SessionRef, SessionStatusEnum, SpeakerRef, TrackRef } from "./agenda-refs.graphql.js";

/** Defines the agenda's mutations: create, update and delete for sessions, speakers, tracks and rooms. */
export function defineAgendaMutations(): void {
  const SpeakerLinkInput = builder.inputType("SpeakerLinkInput", {
    description: "A link on a speaker's profile.",
    fields: (t) => ({
      label: t.string({ required: true, description: "What the link is." }),
      url: t.string({ required: true, description: "An http(s) URL." }),
    }),
  });

  const sessionFields = (t: InputFields) => ({
    title: t.string({ description: "Title." }),
    description: t.string({ description: "Abstract; null clears it." }),
    startsAt: t.field({ type: "DateTime", description: "Start time." }),
    endsAt: t.field({ type: "DateTime", description: "End time, after the start." }),
    roomId: t.id({ description: "Room (of the same project); null clears it." }),
    trackId: t.id({ description: "Track (of the same project); null clears it." }),
    speakerIds: t.idList({
      description: "Speakers in billing order (of the same project); replaces the list.",
    }),
    capacity: t.int({ description: "Seats; null for unlimited." }),
    status: t.field({ type: SessionStatusEnum, description: "Draft (default), published or cancelled." }),
  });

  const CreateSessionInput = builder.inputType("CreateSessionInput", {
    description: "A new session.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      ...sessionFields(t),
      title: t.string({ required: true, description: "Title." }),
      startsAt: t.field({ type: "DateTime", required: true, description: "Start time." }),
      endsAt: t.field({ type: "DateTime", required: true, description: "End time, after the start." }),
    }),
  });
  const UpdateSessionInput = builder.inputType("UpdateSessionInput", {
    description: "Changes to a session; omitted fields stay as they are.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The session's global id." }),
      ...sessionFields(t),
    }),
  });
  const DeleteInput = builder.inputType("DeleteInput", {
    description: "The object to delete.",
    fields: (t) => ({ id: t.id({ required: true, description: "Global id of the object." }) }),
  });

  const sessionRefs = <
    I extends { roomId?: string | null; trackId?: string | null; speakerIds?: readonly string[] | null },
  >(
    input: I,
  ) => ({
    ...input,
    roomId: optionalLocal(input.roomId, "Room"),
    trackId: optionalLocal(input.trackId, "Track"),
    speakerIds: input.speakerIds?.map((id) => referenceLocal(id, "Speaker")),
  });

  const SessionPayload = (name: string, what: string) => payloadType(name, "session", SessionRef, what);
  builder.mutationFields((t) => ({
    createSession: t.field({
      ...requires("agenda:write"),
      type: SessionPayload("CreateSessionPayload", "The result of createSession."),
      description: "Adds a session to the agenda (a draft unless a status is given).",
      args: {
        input: t.arg({
          type: CreateSessionInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("session", () =>
          c.services.agenda.createSession(c.actor, serviceInput(sessionRefs(input))),
        ),
    }),
    updateSession: t.field({
      ...requires("agenda:write"),
      type: SessionPayload("UpdateSessionPayload", "The result of updateSession."),
      description: "Changes a session.",
      args: {
        input: t.arg({
          type: UpdateSessionInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("session", () =>
          c.services.agenda.updateSession(
            c.actor,
            serviceInput({
              ...sessionRefs(input),
              id: requiredLocal(input.id, "Session"),
            }),
          ),
        ),
    }),
    deleteSession: t.field({
      ...requires("agenda:write"),
      type: SessionPayload("DeleteSessionPayload", "The result of deleteSession: the session as it was."),
      description: "Deletes a session.",
      args: {
        input: t.arg({
          type: DeleteInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("session", () =>
          c.services.agenda.deleteSession(c.actor, { id: requiredLocal(input.id, "Session") }),
        ),
    }),
  }));

  const speakerFields = (t: InputFields) => ({
    name: t.string({ description: "Full name." }),
    bio: t.string({ description: "Short biography." }),
    company: t.string({ description: "Employer or organisation." }),
    jobTitle: t.string({ description: "Role at the company." }),
    photoUrl: t.string({ description: "http(s) URL of a portrait." }),
    links: t.field({ type: [SpeakerLinkInput], description: "Profile links; replaces the list." }),
  });
  const CreateSpeakerInput = builder.inputType("CreateSpeakerInput", {
    description: "A new speaker.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      ...speakerFields(t),
      name: t.string({ required: true, description: "Full name." }),
    }),
  });
  const UpdateSpeakerInput = builder.inputType("UpdateSpeakerInput", {
    description: "Changes to a speaker; omitted fields stay as they are.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The speaker's global id." }),
      ...speakerFields(t),
    }),
  });
  const SpeakerPayload = (name: string, what: string) => payloadType(name, "speaker", SpeakerRef, what);

  const TrackInputFields = (t: InputFields) => ({
    name: t.string({ description: "Name." }),
    color: t.string({ description: "Colour as #RRGGBB; null clears it." }),
  });
  const CreateTrackInput = builder.inputType("CreateTrackInput", {
    description: "A new track.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      ...TrackInputFields(t),
      name: t.string({ required: true, description: "Name." }),
    }),
  });
  const UpdateTrackInput = builder.inputType("UpdateTrackInput", {
    description: "Changes to a track.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The track's global id." }),
      ...TrackInputFields(t),
    }),
  });
  const TrackPayload = (name: string, what: string) => payloadType(name, "track", TrackRef, what);

  const RoomInputFields = (t: InputFields) => ({
    name: t.string({ description: "Name." }),
    capacity: t.int({ description: "Seats; null when unknown." }),
  });
  const CreateRoomInput = builder.inputType("CreateRoomInput", {
    description: "A new room.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      ...RoomInputFields(t),
      name: t.string({ required: true, description: "Name." }),
    }),
  });
  const UpdateRoomInput = builder.inputType("UpdateRoomInput", {
    description: "Changes to a room.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The room's global id." }),
      ...RoomInputFields(t),
    }),
  });
  const RoomPayload = (name: string, what: string) => payloadType(name, "room", RoomRef, what);

  const agenda = (c: GraphQLContext) => c.services.agenda;
  builder.mutationFields((t) => ({
    createSpeaker: t.field({
      ...requires("agenda:write"),
      type: SpeakerPayload("CreateSpeakerPayload", "The result of createSpeaker."),
      description: "Adds a speaker.",
      args: {
        input: t.arg({
          type: CreateSpeakerInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () => agenda(c).createSpeaker(c.actor, serviceInput(input))),
    }),
    updateSpeaker: t.field({
      ...requires("agenda:write"),
      type: SpeakerPayload("UpdateSpeakerPayload", "The result of updateSpeaker."),
      description: "Changes a speaker.",
      args: {
        input: t.arg({
          type: UpdateSpeakerInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () =>
          agenda(c).updateSpeaker(
            c.actor,
            serviceInput({ ...input, id: requiredLocal(input.id, "Speaker") }),
          ),
        ),
    }),
    deleteSpeaker: t.field({
      ...requires("agenda:write"),
      type: SpeakerPayload("DeleteSpeakerPayload", "The result of deleteSpeaker: the speaker as it was."),
      description: "Deletes a speaker (and removes them from their sessions).",
      args: {
        input: t.arg({
          type: DeleteInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () =>
          agenda(c).deleteSpeaker(c.actor, { id: requiredLocal(input.id, "Speaker") }),
        ),
    }),
    createTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("CreateTrackPayload", "The result of createTrack."),
      description: "Adds a track.",
      args: {
        input: t.arg({
          type: CreateTrackInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("track", () => agenda(c).createTrack(c.actor, serviceInput(input))),
    }),
    updateTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("UpdateTrackPayload", "The result of updateTrack."),
      description: "Changes a track.",
      args: {
        input: t.arg({
          type: UpdateTrackInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("track", () =>
          agenda(c).updateTrack(c.actor, serviceInput({ ...input, id: requiredLocal(input.id, "Track") })),
        ),
    }),
    deleteTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("DeleteTrackPayload", "The result of deleteTrack: the track as it was."),
      description: "Deletes a track; its sessions keep running without one.",
      args: {
        input: t.arg({
          type: DeleteInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("track", () => agenda(c).deleteTrack(c.actor, { id: requiredLocal(input.id, "Track") })),
    }),
    createRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("CreateRoomPayload", "The result of createRoom."),
      description: "Adds a room.",
      args: {
        input: t.arg({
          type: CreateRoomInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("room", () => agenda(c).createRoom(c.actor, serviceInput(input))),
    }),
    updateRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("UpdateRoomPayload", "The result of updateRoom."),
      description: "Changes a room.",
      args: {
        input: t.arg({
          type: UpdateRoomInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("room", () =>
          agenda(c).updateRoom(c.actor, serviceInput({ ...input, id: requiredLocal(input.id, "Room") })),
        ),
    }),
    deleteRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("DeleteRoomPayload", "The result of deleteRoom: the room as it was."),
      description: "Deletes a room; its sessions keep running without one.",
      args: {
        input: t.arg({
          type: DeleteInput,
          required: true,
          description: "The mutation's arguments, as one input object.",
        }),
      },
      resolve: (_r, { input }, c) =>
        runMutation("room", () => agenda(c).deleteRoom(c.actor, { id: requiredLocal(input.id, "Room") })),
    }),
  }));
}
