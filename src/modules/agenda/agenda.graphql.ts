import { completeValue } from "@pothos/core";
import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import {
  atMost,
  boundedList,
  maxLinksPerSpeaker,
  maxSessionsPerSpeaker,
  maxSpeakersPerSession,
} from "../../graphql/limits/list-bounds.js";
import { nodeLoader as loader } from "../../graphql/nodes.js";
import { columnSelector, preloads, reads } from "../../graphql/selection.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { Session, Speaker } from "./agenda.model.js";
import type { SpeakerLink } from "./agenda.service.js";
import { defineAgendaLists } from "./agenda-lists.graphql.js";
import { defineAgendaMutations } from "./agenda-mutations.graphql.js";
import { RoomRef, SessionRef, SessionStatusEnum, SpeakerRef, TrackRef } from "./agenda-refs.graphql.js";
import type { SessionRow, SpeakerRow } from "./agenda-rows.js";

// The columns of a session or a speaker row each field reads (see graphql/selection.ts).
const session = (...columns: (keyof SessionRow)[]) => reads<SessionRow>(columns);
const speaker = (...columns: (keyof SpeakerRow)[]) => reads<SpeakerRow>(columns);
// The ids a page's rows refer to, without the rows that refer to none.
const present = (ids: (string | null)[]) => ids.filter((id): id is string => id !== null);
const speakersSelected = columnSelector();
const billed = (speakers: readonly Speaker[]) => atMost(speakers, maxSpeakersPerSession);

/** Defines sessions, speakers, tracks and rooms, their Project connections and mutations. */
export function defineAgendaTypes(): void {
  builder.node(SessionRef, {
    description: "A talk, workshop or break on the agenda.",
    id: { public: true, resolve: (s) => s.id, ...session() },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSession(c.actor, id)),
    fields: (t) => ({
      title: t.exposeString("title", {
        public: true,
        ...session("title"),
        description: "Title of the session.",
      }),
      description: t.exposeString("description", {
        public: true,
        ...session("description"),
        nullable: true,
        description: "Abstract (plain text).",
      }),
      startsAt: t.expose("startsAt", {
        public: true,
        ...session("starts_at"),
        type: "DateTime",
        description: "Start time.",
      }),
      endsAt: t.expose("endsAt", {
        public: true,
        ...session("ends_at"),
        type: "DateTime",
        description: "End time (after the start).",
      }),
      status: t.field({
        public: true,
        ...session("status"),
        type: SessionStatusEnum,
        description: "Draft, published or cancelled.",
        resolve: (s) => s.status,
      }),
      capacity: t.exposeInt("capacity", {
        public: true,
        ...session("capacity"),
        nullable: true,
        description: "Seats, when limited.",
      }),
      room: t.field({
        public: true,
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
        public: true,
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
        public: true,
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
        public: true,
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
        public: true,
        ...session("created_at"),
        type: "DateTime",
        description: "When it was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        public: true,
        ...session("updated_at"),
        type: "DateTime",
        description: "When it last changed.",
      }),
    }),
  });

  const SpeakerLinkRef = builder.objectRef<SpeakerLink>("SpeakerLink").implement({
    inheritsAccess: true,
    description: "A link on a speaker's profile.",
    fields: (t) => ({
      label: t.exposeString("label", { description: "What the link is, e.g. Website or Mastodon." }),
      url: t.exposeString("url", { description: "The http(s) URL." }),
    }),
  });

  builder.node(SpeakerRef, {
    description: "A person speaking at the event.",
    id: { public: true, resolve: (s) => s.id, ...speaker("id") },
    loadWithoutCache: loader((c, id) => c.services.agenda.findSpeaker(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { public: true, ...speaker("name"), description: "Full name." }),
      bio: t.exposeString("bio", {
        public: true,
        ...speaker("bio"),
        nullable: true,
        description: "Short biography.",
      }),
      company: t.exposeString("company", {
        public: true,
        ...speaker("company"),
        nullable: true,
        description: "Employer or organisation.",
      }),
      jobTitle: t.exposeString("jobTitle", {
        public: true,
        ...speaker("job_title"),
        nullable: true,
        description: "Role at the company.",
      }),
      photoUrl: t.exposeString("photoUrl", {
        public: true,
        ...speaker("photo_url"),
        nullable: true,
        description: "URL of a portrait.",
      }),
      links: t.field({
        public: true,
        type: [SpeakerLinkRef],
        description: `Profile links (at most ${maxLinksPerSpeaker}).`,
        ...reads<SpeakerRow>(["links"], boundedList(maxLinksPerSpeaker)),
        resolve: (s) => atMost(s.links, maxLinksPerSpeaker),
      }),
      sessions: t.field({
        public: true,
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
        public: true,
        ...speaker("created_at"),
        type: "DateTime",
        description: "When it was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        public: true,
        ...speaker("updated_at"),
        type: "DateTime",
        description: "When it last changed.",
      }),
    }),
  });

  builder.node(TrackRef, {
    description: "A thread of the programme, e.g. Frontend or Keynotes.",
    id: { public: true, resolve: (t) => t.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findTrack(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { public: true, description: "Name of the track." }),
      color: t.exposeString("color", {
        public: true,
        nullable: true,
        description: "Display colour as #RRGGBB.",
      }),
    }),
  });

  builder.node(RoomRef, {
    description: "A room sessions take place in.",
    id: { public: true, resolve: (r) => r.id },
    loadWithoutCache: loader((c, id) => c.services.agenda.findRoom(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { public: true, description: "Name of the room." }),
      capacity: t.exposeInt("capacity", { public: true, nullable: true, description: "Seats, when known." }),
    }),
  });

  defineAgendaLists();
  defineAgendaMutations();
}
