import { builder, type InputFields } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { optionalLocal, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import { serviceInput } from "../../graphql/inputs.js";
import { crudMutations } from "../../graphql/mutations.js";
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

  builder.mutationFields((t) =>
    crudMutations(t, {
      typeName: "Session",
      field: "session",
      noun: "session",
      ref: SessionRef,
      permission: "agenda:write",
      create: {
        input: CreateSessionInput,
        description: "Adds a session to the agenda (a draft unless a status is given).",
        write: (input, c) => c.services.agenda.createSession(c.actor, serviceInput(sessionRefs(input))),
      },
      update: {
        input: UpdateSessionInput,
        description: "Changes a session.",
        write: (input, c) =>
          c.services.agenda.updateSession(
            c.actor,
            serviceInput({ ...sessionRefs(input), id: requiredLocal(input.id, "Session") }),
          ),
      },
      delete: {
        input: DeleteInput,
        description: "Deletes a session.",
        write: (input, c) =>
          c.services.agenda.deleteSession(c.actor, { id: requiredLocal(input.id, "Session") }),
      },
    }),
  );

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

  const agenda = (c: GraphQLContext) => c.services.agenda;
  builder.mutationFields((t) => ({
    ...crudMutations(t, {
      typeName: "Speaker",
      field: "speaker",
      noun: "speaker",
      ref: SpeakerRef,
      permission: "agenda:write",
      create: {
        input: CreateSpeakerInput,
        description: "Adds a speaker.",
        write: (input, c) => agenda(c).createSpeaker(c.actor, serviceInput(input)),
      },
      update: {
        input: UpdateSpeakerInput,
        description: "Changes a speaker.",
        write: (input, c) =>
          agenda(c).updateSpeaker(
            c.actor,
            serviceInput({ ...input, id: requiredLocal(input.id, "Speaker") }),
          ),
      },
      delete: {
        input: DeleteInput,
        description: "Deletes a speaker (and removes them from their sessions).",
        write: (input, c) => agenda(c).deleteSpeaker(c.actor, { id: requiredLocal(input.id, "Speaker") }),
      },
    }),
    ...crudMutations(t, {
      typeName: "Track",
      field: "track",
      noun: "track",
      ref: TrackRef,
      permission: "agenda:write",
      create: {
        input: CreateTrackInput,
        description: "Adds a track.",
        write: (input, c) => agenda(c).createTrack(c.actor, serviceInput(input)),
      },
      update: {
        input: UpdateTrackInput,
        description: "Changes a track.",
        write: (input, c) =>
          agenda(c).updateTrack(c.actor, serviceInput({ ...input, id: requiredLocal(input.id, "Track") })),
      },
      delete: {
        input: DeleteInput,
        description: "Deletes a track; its sessions keep running without one.",
        write: (input, c) => agenda(c).deleteTrack(c.actor, { id: requiredLocal(input.id, "Track") }),
      },
    }),
    ...crudMutations(t, {
      typeName: "Room",
      field: "room",
      noun: "room",
      ref: RoomRef,
      permission: "agenda:write",
      create: {
        input: CreateRoomInput,
        description: "Adds a room.",
        write: (input, c) => agenda(c).createRoom(c.actor, serviceInput(input)),
      },
      update: {
        input: UpdateRoomInput,
        description: "Changes a room.",
        write: (input, c) =>
          agenda(c).updateRoom(c.actor, serviceInput({ ...input, id: requiredLocal(input.id, "Room") })),
      },
      delete: {
        input: DeleteInput,
        description: "Deletes a room; its sessions keep running without one.",
        write: (input, c) => agenda(c).deleteRoom(c.actor, { id: requiredLocal(input.id, "Room") }),
      },
    }),
  }));
}
