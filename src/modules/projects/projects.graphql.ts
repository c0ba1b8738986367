import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { columnSelector, reads } from "../../graphql/selection.js";
import { PermissionEnum } from "../apps/permissions.graphql.js";
import type { Project, UpdateProjectInput } from "./projects.service.js";

/** The Project type; other modules attach their connections to it (`Project.sessions`, …). */
export const ProjectRef = builder.objectRef<Project>("Project");

/**
 * Field options of a Project field that reads nothing of the project but its id (a connection):
 * a `project` selection made only of such fields is answered without reading the project's row.
 */
export const projectIdOnly = (more: { extensions?: Record<string, unknown> } = {}) =>
  reads<Project>([], more);
const projectSelected = columnSelector();

const ProjectStatusEnum = builder.enumType("ProjectStatus", {
  description: "Whether the event is public.",
  values: {
    DRAFT: { description: "Being prepared; visible only to its organizers and apps with access." },
    PUBLISHED: { description: "Public: readable without a token." },
    ARCHIVED: { description: "Over and hidden from the public." },
  } as const,
});

const VenueRef = builder.objectRef<Project["venue"]>("Venue").implement({
  inheritsAccess: true,
  description: "Where the event takes place.",
  fields: (t) => ({
    name: t.exposeString("name", { nullable: true, description: "Name of the venue." }),
    address: t.exposeString("address", { nullable: true, description: "Street address." }),
    city: t.exposeString("city", { nullable: true, description: "City." }),
    country: t.exposeString("country", { nullable: true, description: "ISO 3166-1 alpha-2 country code." }),
  }),
});

/** Defines Project, `Query.project` and `Mutation.updateProject`. */
export function defineProjectTypes(): void {
  builder.node(ProjectRef, {
    description: "An event. Its id is the 4-character Project ID shown in the dashboard URL /b/<id>.",
    id: {
      public: true,
      resolve: (project) => project.id,
      ...projectIdOnly(),
      description: "The 4-character Project ID.",
    },
    loadWithoutCache: async (id, context) => {
      const access = await context.access(id);
      return access ? context.services.projects.load(access) : null;
    },
    fields: (t) => ({
      name: t.exposeString("name", { public: true, description: "The event's name." }),
      description: t.exposeString("description", {
        public: true,
        nullable: true,
        description: "About the event (plain text).",
      }),
      timezone: t.exposeString("timezone", {
        public: true,
        description: "IANA time zone of the event, e.g. Europe/Berlin.",
      }),
      startsAt: t.expose("startsAt", {
        public: true,
        type: "DateTime",
        nullable: true,
        description: "When the event starts.",
      }),
      endsAt: t.expose("endsAt", {
        public: true,
        type: "DateTime",
        nullable: true,
        description: "When the event ends.",
      }),
      venue: t.field({
        public: true,
        type: VenueRef,
        description: "Where it takes place.",
        resolve: (p) => p.venue,
      }),
      website: t.exposeString("website", {
        public: true,
        nullable: true,
        description: "The event's website.",
      }),
      status: t.field({
        public: true,
        type: ProjectStatusEnum,
        description: "Draft, published or archived.",
        resolve: (p) => p.status,
      }),
      isTest: t.exposeBoolean("isTest", {
        public: true,
        description:
          "Whether this is a developer's test project: demo data, never published, never counted in an organizer's figures. Reset it to its demo data from the dashboard or the CLI.",
      }),
      createdAt: t.expose("createdAt", {
        public: true,
        type: "DateTime",
        description: "When the project was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        public: true,
        type: "DateTime",
        description: "When its basic fields last changed.",
      }),
      viewerPermissions: t.field({
        public: true,
        ...projectIdOnly(),
        type: [PermissionEnum],
        description: "The permissions the caller holds in this project (empty for public requests).",
        resolve: async (project, _args, context) => [
          ...((await context.access(project.id))?.permissions ?? []),
        ],
      }),
    }),
  });

  builder.queryField("project", (t) =>
    t.field({
      type: ProjectRef,
      nullable: true,
      description:
        "A project by its 4-character id. Without a token only published projects are found; a project that does not exist and one you may not see give the same NOT_FOUND error.",
      args: { id: t.arg.id({ required: true, description: "The 4-character Project ID." }) },
      resolve: async (_root, { id }, context, info) => {
        const access = await context.access(String(id));
        if (!access) throw notFound("Project");
        // An agenda or attendee page selects only connections of the project: no row to read.
        return projectSelected(info, context)?.length === 0
          ? context.services.projects.idOnly(access)
          : context.services.projects.load(access);
      },
    }),
  );

  const VenueInput = builder.inputType("VenueInput", {
    description: "Venue fields to change; omitted fields stay as they are, null clears one.",
    fields: (t) => ({
      name: t.string({ description: "Name of the venue." }),
      address: t.string({ description: "Street address." }),
      city: t.string({ description: "City." }),
      country: t.string({ description: "ISO 3166-1 alpha-2 code, e.g. DE." }),
    }),
  });

  const UpdateProjectInput = builder.inputType("UpdateProjectInput", {
    description: "The project to change and the basic fields to set; omitted fields stay as they are.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      name: t.string({ description: "New name." }),
      description: t.string({ description: "New description; null clears it." }),
      timezone: t.string({ description: "IANA time zone." }),
      startsAt: t.field({ type: "DateTime", description: "Start; null clears it." }),
      endsAt: t.field({ type: "DateTime", description: "End; null clears it." }),
      venue: t.field({ type: VenueInput, description: "Venue fields to change." }),
      website: t.string({ description: "http(s) URL; null clears it." }),
      status: t.field({ type: ProjectStatusEnum, description: "Publish, archive or return to draft." }),
    }),
  });

  const UpdateProjectPayload = payloadType(
    "UpdateProjectPayload",
    "project",
    ProjectRef,
    "The result of updateProject.",
    "The updated project.",
    "Input problems; empty on success.",
  );

  builder.mutationField("updateProject", (t) =>
    inputMutation(t, {
      permission: "project:write",
      description: "Updates the project's basic fields.",
      input: UpdateProjectInput,
      payload: UpdateProjectPayload,
      field: "project",
      write: ({ projectId, ...changes }, context) =>
        // GraphQL hands explicit nulls through; the service's schema validates them like any input.
        context.services.projects.update(context.actor, String(projectId), changes as UpdateProjectInput),
    }),
  );
}
