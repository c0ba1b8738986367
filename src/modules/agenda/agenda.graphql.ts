import { completeValue } from "@pothos/core";
import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, toConnection } from "../../graphql/connections.js";
import { optionalLocal } from "../../graphql/ids.js";
import {
  atMost,
  boundedList,
  maxLinksPerSpeaker,
  maxSessionsPerSpeaker,
  maxSpeakersPerSession,
} from "../../graphql/limits/list-bounds.js";
import { nodeLoader as loader } from "../../graphql/nodes.js";
import { restricts } from "../../graphql/permissions.js";
import { columnSelector, preloadSelector, preloads, reads } from "../../graphql/selection.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import type { Session, Speaker } from "./agenda.model.js";
import type { SessionRow, SpeakerRow } from "./agenda.repository.js";
import type { SpeakerLink } from "./agenda.service.js";
import { defineAgendaMutations } from "./agenda-mutations.graphql.js";
import { RoomRef, SessionRef, SessionStatusEnum, SpeakerRef, TrackRef } from "./agenda-refs.graphql.js";

// The columns of a session or a speaker row each field reads (see graphql/selection.ts).
const session = (...columns: (keyof SessionRow)[]) => reads<SessionRow>(columns);
const speaker = (...columns: (keyof SpeakerRow)[]) => reads<SpeakerRow>(columns);
const sessionsSelected = columnSelector(["edges", "node"]);
const sessionsPreloaded = preloadSelector<Session>(["edges", "node"]);
// The ids a page's rows refer to, without the rows that refer to none.
const present = (ids: (string | null)[]) => ids.filter((id): id is string => id !== null);
const speakersSelected = columnSelector();
const billed = (speakers: readonly Speaker[]) => atMost(speakers, maxSpeakersPerSession);

/** Defines sessions, speakers, tracks and rooms, their Project connections and mutations. */
export function defineAgendaTypes(): void {
  builder.node(SessionRef, {
    description: "A talk, workshop or break on the agenda.",
    id: { resolve: (s) => s.id, ...session() },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSession(c.actor, id)),
    fields: (t) => ({
      title: t.exposeString("title", { ...session("title"), description: "Title of the session." }),
      description: t.exposeString("description", {
        ...session("description"),
        nullable: true,
        description: "Abstract (plain text).",
      }),
      startsAt: t.expose("startsAt", {
        ...session("starts_at"),
        type: "DateTime",
        description: "Start time.",
      }),
      endsAt: t.expose("endsAt", {
        ...session("ends_at"),
        type: "DateTime",
        description: "End time (after the start).",
      }),
      status: t.field({
        ...session("status"),
        type: SessionStatusEnum,
        description: "Draft, published or cancelled.",
        resolve: (s) => s.status,
      }),
      capacity: t.exposeInt("capacity", {
        ...session("capacity"),
        nullable: true,
        description: "Seats, when limited.",
      }),
      room: t.field({
        ...reads<SessionRow>(
          ["room_id"],
          preloads<Session>((rows, c) => c.loaders.room.preload(present(rows.map((s) => s.roomId)))),
        ),
        type: RoomRef,
        nullable: true,
        description: "Where it takes place.",
        resolve: (s, _args, c) => (s.roomId ? c.loaders.room.get(s.roomId) : null),
      }),
      track: t.field({
        ...reads<SessionRow>(
          ["track_id"],
          preloads<Session>((rows, c) => c.loaders.track.preload(present(rows.map((s) => s.trackId)))),
        ),
        type: TrackRef,
        nullable: true,
        description: "The track it belongs to.",
        resolve: (s, _args, c) => (s.trackId ? c.loaders.track.get(s.trackId) : null),
      }),
      speakers: t.field({
        type: [SpeakerRef],
        description: `Its speakers, in billing order (at most ${maxSpeakersPerSession}).`,
        ...reads<SessionRow>([], {
          extensions: {
            ...boundedList(maxSpeakersPerSession).extensions,
            ...preloads<Session>((rows, c, columns) =>
              c.loaders.speakersOfSession(columns).preload(rows.map((s) => s.id)),
            ).extensions,
          },
        }),
        resolve: (s, _args, c, info) =>
          completeValue(c.loaders.speakersOfSession(speakersSelected(info, c)).get(s.id), billed),
      }),
      project: t.field({
        ...session("project_id"),
        type: ProjectRef,
        description: "The event it belongs to.",
        resolve: (s, _args, c) =>
          c.loaders.project.load(s.projectId).then((project) => {
            if (!project) throw notFound("Project");
            return project;
          }),
      }),
      createdAt: t.expose("createdAt", {
        ...session("created_at"),
        type: "DateTime",
        description: "When it was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        ...session("updated_at"),
        type: "DateTime",
        description: "When it last changed.",
      }),
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
    id: { resolve: (s) => s.id, ...speaker("id") },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSpeaker(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { ...speaker("name"), description: "Full name." }),
      bio: t.exposeString("bio", { ...speaker("bio"), nullable: true, description: "Short biography." }),
      company: t.exposeString("company", {
        ...speaker("company"),
        nullable: true,
        description: "Employer or organisation.",
      }),
      jobTitle: t.exposeString("jobTitle", {
        ...speaker("job_title"),
        nullable: true,
        description: "Role at the company.",
      }),
      photoUrl: t.exposeString("photoUrl", {
        ...speaker("photo_url"),
        nullable: true,
        description: "URL of a portrait.",
      }),
      links: t.field({
        type: [SpeakerLinkRef],
        description: `Profile links (at most ${maxLinksPerSpeaker}).`,
        ...reads<SpeakerRow>(["links"], boundedList(maxLinksPerSpeaker)),
        resolve: (s) => atMost(s.links, maxLinksPerSpeaker),
      }),
      sessions: t.field({
        type: [SessionRef],
        description: `Sessions the speaker appears in, by start time (the first ${maxSessionsPerSpeaker}): published ones, and all with agenda:read.`,
        ...reads<SpeakerRow>(["id", "project_id"], boundedList(maxSessionsPerSpeaker)),
        resolve: async (s, _args, c) => {
          const access = await c.access(s.projectId);
          const sessions = await (access?.permissions.has("agenda:read")
            ? c.loaders.allSessionsOfSpeaker.load(s.id)
            : c.loaders.publishedSessionsOfSpeaker.load(s.id));
          return atMost(sessions, maxSessionsPerSpeaker);
        },
      }),
      createdAt: t.expose("createdAt", {
        ...speaker("created_at"),
        type: "DateTime",
        description: "When it was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        ...speaker("updated_at"),
        type: "DateTime",
        description: "When it last changed.",
      }),
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
        ...projectIdOnly(),
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
        resolve: async (project, args, c, info) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          const filter = {
            statuses: args.status ?? undefined,
            trackId: optionalLocal(args.trackId, "Track") ?? undefined,
            roomId: optionalLocal(args.roomId, "Room") ?? undefined,
          };
          return toConnection(
            args,
            (window) => c.services.agenda.listSessions(access, filter, window, sessionsSelected(info, c)),
            () => c.services.agenda.countSessions(access, filter),
            (rows) => sessionsPreloaded(info)(rows, c),
          );
        },
      },
      ...connectionTypes("Session", "sessions"),
    ),
    speakers: t.connection(
      {
        ...projectIdOnly(),
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
        ...projectIdOnly(),
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
        ...projectIdOnly(),
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
