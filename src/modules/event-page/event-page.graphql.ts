import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import { companyFields, type EventPageSettings } from "./page-settings.js";

type EventPageView = EventPageSettings & { projectId: string };

const CompanyFieldRef = builder.enumType("EventPageCompanyField", {
  description: "Whether the public registration form asks for the company.",
  values: {
    OPTIONAL: { description: "Asked; may be left empty." },
    REQUIRED: { description: "Asked and required." },
    HIDDEN: { description: "Not asked." },
  } as const,
});

const EventPageRef = builder.objectRef<EventPageView>("EventPage").implement({
  description: "The project's public event page (/e/<id>) and the organizer's switches for it.",
  fields: (t) => ({
    id: t.id({
      public: true,
      description: "The 4-character Project ID of the project the page belongs to.",
      resolve: (page) => page.projectId,
    }),
    path: t.string({
      public: true,
      description: "Where the page is, relative to the service's address: /e/<project id>.",
      resolve: (page) => `/e/${page.projectId}`,
    }),
    pageEnabled: t.exposeBoolean("pageEnabled", {
      public: true,
      description: "Whether the page is shown (only ever while the project is PUBLISHED).",
    }),
    registrationOpen: t.exposeBoolean("registrationOpen", {
      public: true,
      description: "Whether visitors may register on the page.",
    }),
    companyField: t.field({
      public: true,
      type: CompanyFieldRef,
      description: "Whether the registration form asks for the company.",
      resolve: (page) => page.companyField,
    }),
  }),
});

/** Defines `Project.eventPage` and `Mutation.updateEventPage`. */
export function defineEventPageTypes(): void {
  builder.objectField(ProjectRef, "eventPage", (t) =>
    t.field({
      public: true,
      type: EventPageRef,
      description:
        "The public event page's settings; they are visible on the page itself, so no permission is needed.",
      resolve: async (project, _args, c) => {
        const access = await c.access(project.id);
        if (!access) throw notFound("Project");
        return { projectId: project.id, ...(await c.services.eventPage.settings(c.actor, project.id)) };
      },
    }),
  );

  const UpdateEventPageInput = builder.inputType("UpdateEventPageInput", {
    description: "The public event page's switches; all three are set.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      pageEnabled: t.boolean({ required: true, description: "Show the page." }),
      registrationOpen: t.boolean({ required: true, description: "Let visitors register on the page." }),
      companyField: t.field({ type: CompanyFieldRef, required: true, description: "Ask for the company?" }),
    }),
  });

  builder.mutationField("updateEventPage", (t) =>
    inputMutation(t, {
      permission: "project:write",
      description: "Changes the public event page's switches (Settings → General in the dashboard).",
      input: UpdateEventPageInput,
      payload: payloadType(
        "UpdateEventPagePayload",
        "eventPage",
        EventPageRef,
        "The result of updateEventPage.",
      ),
      field: "eventPage",
      write: async (input, c) => {
        const projectId = String(input.projectId);
        const companyField = companyFields.find((f) => f === input.companyField) ?? "OPTIONAL";
        const settings = await c.services.eventPage.updateSettings(c.actor, projectId, {
          pageEnabled: input.pageEnabled,
          registrationOpen: input.registrationOpen,
          companyField,
        });
        return { projectId, ...settings };
      },
    }),
  );
}
