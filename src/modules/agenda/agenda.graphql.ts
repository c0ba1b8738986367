import { notFound } from "../../errors.js";
import { builder, type InputFields } from "../../graphql/builder.js";
import { connectionTypes, toConnection } from "../../graphql/connections.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { optionalLocal, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import {
  atMost,
  boundedList,
  maxLinksPerSpeaker,
  maxSessionsPerSpeaker,
  maxSpeakersPerSession,
} from "../../graphql/limits/list-bounds.js";
import { payloadType, runMutation } from "../../graphql/mutations.js";
import { nodeLoader as loader } from "../../graphql/nodes.js";
import { requires, restricts } from "../../graphql/permissions.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { Room, Session, Speaker, SpeakerLink, Track } from "./agenda.service.js";

export const SessionRef = builder.objectRef<Session>("Session");
export const SpeakerRef = builder.objectRef<Speaker>("Speaker");
export const TrackRef = builder.objectRef<Track>("Track");
export const RoomRef = builder.objectRef<Room>("Room");

const SessionStatusEnum = builder.enumType("SessionStatus", {
  description: "Where a session stands. Only PUBLISHED sessions are public.",
  values: {
    DRAFT: { description: "Being prepared; needs agenda:read to be seen." },
    PUBLISHED: { description: "On the public agenda." },
    CANCELLED: { description: "Called off; needs agenda:read to be seen." },
  } as const,
});

// GraphQL inputs carry explicit nulls where the services' TypeScript types say "optional"; the
// services validate every input at run time, so resolvers pass inputs on with `as never`.

/** Defines sessions, speakers, tracks and rooms, their Project connections and mutations. */
export function defineAgendaTypes(): void {
  builder.node(SessionRef, {
    description: "A talk, workshop or break on the agenda.",
    id: { resolve: (s) => s.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSession(c.actor, id)),
    fields: (t) => ({
      title: t.exposeString("title", { description: "Title of the session." }),
      description: t.exposeString("description", { nullable: true, description: "Abstract (plain text)." }),
      startsAt: t.expose("startsAt", { type: "DateTime", description: "Start time." }),
      endsAt: t.expose("endsAt", { type: "DateTime", description: "End time (after the start)." }),
      status: t.field({
        type: SessionStatusEnum,
        description: "Draft, published or cancelled.",
        resolve: (s) => s.status,
      }),
      capacity: t.exposeInt("capacity", { nullable: true, description: "Seats, when limited." }),
      room: t.field({
        type: RoomRef,
        nullable: true,
        description: "Where it takes place.",
        resolve: (s, _args, c) => (s.roomId ? c.loaders.room.load(s.roomId) : null),
      }),
      track: t.field({
        type: TrackRef,
        nullable: true,
        description: "The track it belongs to.",
        resolve: (s, _args, c) => (s.trackId ? c.loaders.track.load(s.trackId) : null),
      }),
      speakers: t.field({
        type: [SpeakerRef],
        description: `Its speakers, in billing order (at most ${maxSpeakersPerSession}).`,
        ...boundedList(maxSpeakersPerSession),
        resolve: async (s, _args, c) =>
          atMost(await c.loaders.speakersOfSession.load(s.id), maxSpeakersPerSession),
      }),
      project: t.field({
        type: ProjectRef,
        description: "The event it belongs to.",
        resolve: async (s, _args, c) =>
          (await c.loaders.project.load(s.projectId)) ?? Promise.reject(notFound("Project")),
      }),
      createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
      updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed." }),
    }),
  });

  const SpeakerLinkRef = builder.objectRef<SpeakerLink>("SpeakerLink").implement({
    description: "A link on a speaker's profile.",
    fields: (t) => ({
      label: t.exposeString("label", { description: "What the link is, e.g. Website or Mastodon." }),
      url: t.exposeString("url", { description: "The http(s) URL." }),
    }),
  });

  builder.node(SpeakerRef, {
    description: "A person speaking at the event.",
    id: { resolve: (s) => s.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSpeaker(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { description: "Full name." }),
      bio: t.exposeString("bio", { nullable: true, description: "Short biography." }),
      company: t.exposeString("company", { nullable: true, description: "Employer or organisation." }),
      jobTitle: t.exposeString("jobTitle", { nullable: true, description: "Role at the company." }),
      photoUrl: t.exposeString("photoUrl", { nullable: true, description: "URL of a portrait." }),
      links: t.field({
        type: [SpeakerLinkRef],
        description: `Profile links (at most ${maxLinksPerSpeaker}).`,
        ...boundedList(maxLinksPerSpeaker),
        resolve: (s) => atMost(s.links, maxLinksPerSpeaker),
      }),
      sessions: t.field({
        type: [SessionRef],
        description: `Sessions the speaker appears in, by start time (the first ${maxSessionsPerSpeaker}): published ones, and all with agenda:read.`,
        ...boundedList(maxSessionsPerSpeaker),
        resolve: async (s, _args, c) => {
          const access = await c.access(s.projectId);
          const sessions = await (access?.permissions.has("agenda:read")
            ? c.loaders.allSessionsOfSpeaker.load(s.id)
            : c.loaders.publishedSessionsOfSpeaker.load(s.id));
          return atMost(sessions, maxSessionsPerSpeaker);
        },
      }),
      createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
      updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed." }),
    }),
  });

  builder.node(TrackRef, {
    description: "A thread of the programme, e.g. Frontend or Keynotes.",
    id: { resolve: (t) => t.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findTrack(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { description: "Name of the track." }),
      color: t.exposeString("color", { nullable: true, description: "Display colour as #RRGGBB." }),
    }),
  });

  builder.node(RoomRef, {
    description: "A room sessions take place in.",
    id: { resolve: (r) => r.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findRoom(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { description: "Name of the room." }),
      capacity: t.exposeInt("capacity", { nullable: true, description: "Seats, when known." }),
    }),
  });

  builder.objectFields(ProjectRef, (t) => ({
    sessions: t.connection(
      {
        type: SessionRef,
        description:
          "Sessions by start time. Published ones by default; asking for other statuses needs agenda:read.",
        args: {
          status: t.arg({
            ...restricts("agenda:read", ["PUBLISHED"]),
            type: [SessionStatusEnum],
            description: "Statuses to include (default [PUBLISHED]).",
          }),
          trackId: t.arg.id({ description: "Only sessions of this track." }),
          roomId: t.arg.id({ description: "Only sessions in this room." }),
        },
        resolve: async (project, args, c) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          const filter = {
            statuses: args.status ?? undefined,
            trackId: optionalLocal(args.trackId, "Track") ?? undefined,
            roomId: optionalLocal(args.roomId, "Room") ?? undefined,
          };
          return toConnection(
            args,
            (window) => c.services.agenda.listSessions(access, filter, window),
            () => c.services.agenda.countSessions(access, filter),
          );
        },
      },
      ...connectionTypes("Session", "sessions"),
    ),
    speakers: t.connection(
      {
        type: SpeakerRef,
        description:
          "Speakers by name: those of published sessions; all of them with includeUnpublished (agenda:read).",
        args: {
          includeUnpublished: t.arg.boolean({
            ...restricts("agenda:read", [false]),
            defaultValue: false,
            description: "Include speakers without a published session (needs agenda:read).",
          }),
        },
        resolve: async (project, args, c) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          const filter = { includeUnpublished: args.includeUnpublished ?? false };
          return toConnection(
            args,
            (window) => c.services.agenda.listSpeakers(access, filter, window),
            () => c.services.agenda.countSpeakers(access, filter),
          );
        },
      },
      ...connectionTypes("Speaker", "speakers"),
    ),
    tracks: t.connection(
      {
        type: TrackRef,
        description: "Tracks by name. Public.",
        resolve: async (project, args, c) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          return toConnection(
            args,
            (window) => c.services.agenda.listTracks(access, window),
            () => c.services.agenda.countTracks(access),
          );
        },
      },
      ...connectionTypes("Track", "tracks"),
    ),
    rooms: t.connection(
      {
        type: RoomRef,
        description: "Rooms by name. Public.",
        resolve: async (project, args, c) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          return toConnection(
            args,
            (window) => c.services.agenda.listRooms(access, window),
            () => c.services.agenda.countRooms(access),
          );
        },
      },
      ...connectionTypes("Room", "rooms"),
    ),
  }));

  defineAgendaMutations();
}

function defineAgendaMutations(): void {
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
      args: { input: t.arg({ type: CreateSessionInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("session", () => c.services.agenda.createSession(c.actor, sessionRefs(input) as never)),
    }),
    updateSession: t.field({
      ...requires("agenda:write"),
      type: SessionPayload("UpdateSessionPayload", "The result of updateSession."),
      description: "Changes a session.",
      args: { input: t.arg({ type: UpdateSessionInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("session", () =>
          c.services.agenda.updateSession(c.actor, {
            ...sessionRefs(input),
            id: requiredLocal(input.id, "Session"),
          } as never),
        ),
    }),
    deleteSession: t.field({
      ...requires("agenda:write"),
      type: SessionPayload("DeleteSessionPayload", "The result of deleteSession: the session as it was."),
      description: "Deletes a session.",
      args: { input: t.arg({ type: DeleteInput, required: true }) },
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
      args: { input: t.arg({ type: CreateSpeakerInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () => agenda(c).createSpeaker(c.actor, input as never)),
    }),
    updateSpeaker: t.field({
      ...requires("agenda:write"),
      type: SpeakerPayload("UpdateSpeakerPayload", "The result of updateSpeaker."),
      description: "Changes a speaker.",
      args: { input: t.arg({ type: UpdateSpeakerInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () =>
          agenda(c).updateSpeaker(c.actor, { ...input, id: requiredLocal(input.id, "Speaker") } as never),
        ),
    }),
    deleteSpeaker: t.field({
      ...requires("agenda:write"),
      type: SpeakerPayload("DeleteSpeakerPayload", "The result of deleteSpeaker: the speaker as it was."),
      description: "Deletes a speaker (and removes them from their sessions).",
      args: { input: t.arg({ type: DeleteInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("speaker", () =>
          agenda(c).deleteSpeaker(c.actor, { id: requiredLocal(input.id, "Speaker") }),
        ),
    }),
    createTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("CreateTrackPayload", "The result of createTrack."),
      description: "Adds a track.",
      args: { input: t.arg({ type: CreateTrackInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("track", () => agenda(c).createTrack(c.actor, input as never)),
    }),
    updateTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("UpdateTrackPayload", "The result of updateTrack."),
      description: "Changes a track.",
      args: { input: t.arg({ type: UpdateTrackInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("track", () =>
          agenda(c).updateTrack(c.actor, { ...input, id: requiredLocal(input.id, "Track") } as never),
        ),
    }),
    deleteTrack: t.field({
      ...requires("agenda:write"),
      type: TrackPayload("DeleteTrackPayload", "The result of deleteTrack: the track as it was."),
      description: "Deletes a track; its sessions keep running without one.",
      args: { input: t.arg({ type: DeleteInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("track", () => agenda(c).deleteTrack(c.actor, { id: requiredLocal(input.id, "Track") })),
    }),
    createRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("CreateRoomPayload", "The result of createRoom."),
      description: "Adds a room.",
      args: { input: t.arg({ type: CreateRoomInput, required: true }) },
      resolve: (_r, { input }, c) => runMutation("room", () => agenda(c).createRoom(c.actor, input as never)),
    }),
    updateRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("UpdateRoomPayload", "The result of updateRoom."),
      description: "Changes a room.",
      args: { input: t.arg({ type: UpdateRoomInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("room", () =>
          agenda(c).updateRoom(c.actor, { ...input, id: requiredLocal(input.id, "Room") } as never),
        ),
    }),
    deleteRoom: t.field({
      ...requires("agenda:write"),
      type: RoomPayload("DeleteRoomPayload", "The result of deleteRoom: the room as it was."),
      description: "Deletes a room; its sessions keep running without one.",
      args: { input: t.arg({ type: DeleteInput, required: true }) },
      resolve: (_r, { input }, c) =>
        runMutation("room", () => agenda(c).deleteRoom(c.actor, { id: requiredLocal(input.id, "Room") })),
    }),
  }));
}
