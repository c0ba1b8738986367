import type { GraphQLResolveInfo } from "graphql";
import type { SessionStatus } from "../../db/schema.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { optionalLocal } from "../../graphql/ids.js";
import { requires, restricts, widenedBy } from "../../graphql/permissions.js";
import { columnSelector, preloadSelector } from "../../graphql/selection.js";
import type { PageArgs } from "../../shared/pagination.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import type { Session } from "./agenda.model.js";
import { RoomRef, SessionRef, SessionStatusEnum, SpeakerRef, TrackRef } from "./agenda-refs.graphql.js";

const sessionsSelected = columnSelector(["edges", "node"]);
const sessionsPreloaded = preloadSelector<Session>(["edges", "node"]);
const everyStatus: SessionStatus[] = ["DRAFT", "PUBLISHED", "CANCELLED"];

type SessionArgs = PageArgs & {
  status?: SessionStatus[] | null;
  trackId?: string | null;
  roomId?: string | null;
};

// One page of a project's sessions: the statuses asked for, or `statuses` when none are.
async function sessionPage(
  project: { id: string },
  args: SessionArgs,
  c: GraphQLContext,
  info: GraphQLResolveInfo,
  statuses: SessionStatus[] | undefined,
) {
  const filter = {
    statuses: args.status ?? statuses,
    trackId: optionalLocal(args.trackId, "Track") ?? undefined,
    roomId: optionalLocal(args.roomId, "Room") ?? undefined,
  };
  return projectConnection(c, project.id, args, (access) => ({
    list: (window) => c.services.agenda.listSessions(access, filter, window, sessionsSelected(info, c)),
    count: () => c.services.agenda.countSessions(access, filter),
    preload: (rows) => sessionsPreloaded(info)(rows, c),
  }));
}

async function speakerPage(
  project: { id: string },
  args: PageArgs,
  c: GraphQLContext,
  includeUnpublished: boolean,
) {
  const filter = { includeUnpublished };
  return projectConnection(c, project.id, args, (access) => ({
    list: (window) => c.services.agenda.listSpeakers(access, filter, window),
    count: () => c.services.agenda.countSpeakers(access, filter),
  }));
}

/** Defines the agenda's lists on Project: sessions, speakers, tracks and rooms. */
export function defineAgendaLists(): void {
  const [sessionConnection, sessionEdge] = connectionTypes("Session", "sessions");
  const SessionConnection = builder.connectionObject({ type: SessionRef, ...sessionConnection }, sessionEdge);
  const [speakerConnection, speakerEdge] = connectionTypes("Speaker", "speakers");
  const SpeakerConnection = builder.connectionObject({ type: SpeakerRef, ...speakerConnection }, speakerEdge);

  builder.objectFields(ProjectRef, (t) => ({
    sessions: t.connection(
      {
        ...projectIdOnly(),
        public: true,
        type: SessionRef,
        description:
          "Sessions by start time. Published ones by default; asking for other statuses needs agenda:read.",
        args: {
          status: t.arg({
            ...restricts("agenda:read", ["PUBLISHED"]),
            type: [SessionStatusEnum],
            description: "Statuses to include (default [PUBLISHED]).",
            deprecationReason: widenedBy("allSessions(status:)"),
          }),
          trackId: t.arg.id({ description: "Only sessions of this track." }),
          roomId: t.arg.id({ description: "Only sessions in this room." }),
        },
        resolve: (project, args, c, info) => sessionPage(project, args, c, info, undefined),
      },
      SessionConnection,
    ),
    allSessions: t.connection(
      {
        ...projectIdOnly(requires("agenda:read")),
        type: SessionRef,
        nullable: true,
        description:
          "Every session by start time, drafts and cancelled ones included; null (with a FORBIDDEN error on this field alone) without agenda:read.",
        args: {
          status: t.arg({
            type: [SessionStatusEnum],
            description: "Statuses to include (default: all of them).",
          }),
          trackId: t.arg.id({ description: "Only sessions of this track." }),
          roomId: t.arg.id({ description: "Only sessions in this room." }),
        },
        resolve: (project, args, c, info) => sessionPage(project, args, c, info, everyStatus),
      },
      SessionConnection,
    ),
    speakers: t.connection(
      {
        ...projectIdOnly(),
        public: true,
        type: SpeakerRef,
        description:
          "Speakers by name: those of published sessions; all of them with includeUnpublished (agenda:read).",
        args: {
          includeUnpublished: t.arg.boolean({
            ...restricts("agenda:read", [false]),
            defaultValue: false,
            description: "Include speakers without a published session (needs agenda:read).",
            deprecationReason: widenedBy("allSpeakers"),
          }),
        },
        resolve: (project, args, c) => speakerPage(project, args, c, args.includeUnpublished ?? false),
      },
      SpeakerConnection,
    ),
    allSpeakers: t.connection(
      {
        ...projectIdOnly(requires("agenda:read")),
        type: SpeakerRef,
        nullable: true,
        description:
          "Every speaker by name, those without a published session included; null (with a FORBIDDEN error on this field alone) without agenda:read.",
        resolve: (project, args, c) => speakerPage(project, args, c, true),
      },
      SpeakerConnection,
    ),
    tracks: t.connection(
      {
        ...projectIdOnly(),
        public: true,
        type: TrackRef,
        description: "Tracks by name. Public.",
        resolve: (project, args, c) =>
          projectConnection(c, project.id, args, (access) => ({
            list: (window) => c.services.agenda.listTracks(access, window),
            count: () => c.services.agenda.countTracks(access),
          })),
      },
      ...connectionTypes("Track", "tracks"),
    ),
    rooms: t.connection(
      {
        ...projectIdOnly(),
        public: true,
        type: RoomRef,
        description: "Rooms by name. Public.",
        resolve: (project, args, c) =>
          projectConnection(c, project.id, args, (access) => ({
            list: (window) => c.services.agenda.listRooms(access, window),
            count: () => c.services.agenda.countRooms(access),
          })),
      },
      ...connectionTypes("Room", "rooms"),
    ),
  }));
}
