import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import type { ProjectStatus } from "../../db/schema.js";
import { httpStatusOf } from "../../errors.js";
import type { ProjectAccess } from "../../modules/access/access.service.js";
import { can } from "../../modules/access/policy.js";
import type { EventPageSettings } from "../../modules/event-page/page-settings.js";
import type { Project } from "../../modules/projects/projects.service.js";
import { actorOf, type PageContext, pageContext, redirectTo } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { Facts, Notice, TabPanel, Tabs } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton, TextField } from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { EventPagePanel, registerEventPageSettings } from "./event-page-settings.js";
import { type PaymentSettingsView, PaymentsPanel, registerPaymentSettings } from "./payment-settings.js";
import { ProjectFields, projectFormValues, projectInputFromForm } from "./project-form.js";

/**
 * The tabs of project settings, in order. Adding a tab is one line here plus its route, which
 * renders `<SettingsPage tab="…">`. `path` is appended to `/b/<id>/settings`.
 */
const settingsTabs = [
  { id: "general", label: "General", path: "" },
  { id: "members", label: "Members", path: "/members" },
  { id: "api", label: "API", path: "/api" },
  { id: "integrations", label: "Integrations", path: "/integrations" },
  { id: "audit", label: "Audit log", path: "/audit" },
] as const;

export type SettingsTab = (typeof settingsTabs)[number]["id"];

/** A settings page: the project frame, the settings tabs, and the selected tab's panel. */
export function SettingsPage(props: {
  ctx: PageContext;
  project: Pick<Project, "id" | "name" | "status">;
  tab: SettingsTab;
  children: ComponentChildren;
}) {
  const tabs = settingsTabs.map((t) => ({
    id: t.id,
    label: t.label,
    href: `/b/${props.project.id}/settings${t.path}`,
    count: t.id === "integrations" ? props.ctx.pendingApprovals : undefined,
  }));
  const label = settingsTabs.find((t) => t.id === props.tab)?.label ?? "Settings";
  return (
    <ProjectLayout ctx={props.ctx} project={props.project} section="settings" title={`Settings: ${label}`}>
      <h2 class="visually-hidden">Settings</h2>
      <Tabs label="Project settings" tabs={tabs} current={props.tab} />
      <TabPanel id={props.tab}>{props.children}</TabPanel>
    </ProjectLayout>
  );
}

/** The status changes offered from each status (Settings › General and the Overview). */
export const statusActions: Record<
  ProjectStatus,
  { status: ProjectStatus; label: string; variant: "primary" | "secondary" | "danger" }[]
> = {
  DRAFT: [
    { status: "PUBLISHED", label: "Publish", variant: "primary" },
    { status: "ARCHIVED", label: "Archive", variant: "secondary" },
  ],
  PUBLISHED: [
    { status: "DRAFT", label: "Unpublish", variant: "secondary" },
    { status: "ARCHIVED", label: "Archive", variant: "secondary" },
  ],
  ARCHIVED: [{ status: "DRAFT", label: "Restore as draft", variant: "secondary" }],
};

/** What each status means, next to the status buttons. */
export const statusText: Record<ProjectStatus, string> = {
  DRAFT: "Draft: only your team sees this event.",
  PUBLISHED: "Published: the event, its published sessions and on-sale tickets are public through the API.",
  ARCHIVED: "Archived: the event is over and hidden from the public.",
};

/** The owners' "Delete project" panel: deleting asks to type the project's id or name. */
function DeletePanel(props: { ctx: PageContext; project: Project; state: FormState }) {
  const { project } = props;
  return (
    <section class="panel panel-danger" aria-labelledby="delete-heading">
      <h3 id="delete-heading">Delete project</h3>
      <p>
        Deleting removes the agenda, tickets, attendees and members for good, deletes the apps created here
        (their tokens stop working at once) and ends every app's access to this project. It cannot be undone.
        The audit log keeps only a record of who deleted it.
      </p>
      <Form action={`/b/${project.id}/settings/delete`} csrf={props.ctx.csrf} label="Delete project">
        <FormError state={props.state} />
        <TextField
          name="confirmation"
          label={`Type the project id ${project.id} or its name to confirm`}
          state={props.state}
          autocomplete="off"
          required
        />
        <div class="form-actions">
          <SubmitButton variant="danger">Delete this project</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

function GeneralTab(props: {
  ctx: PageContext;
  project: Project;
  access: ProjectAccess;
  state: FormState;
  deleteState?: FormState;
  eventPage: EventPageSettings;
  payments: PaymentSettingsView;
}) {
  const { ctx, project } = props;
  const base = `/b/${project.id}/settings`;
  if (!props.access.permissions.has("project:write")) {
    return (
      <SettingsPage ctx={ctx} project={project} tab="general">
        <Notice kind="info">Only the project's owners and admins can change these settings.</Notice>
        <Facts
          items={[
            ["Name", project.name],
            ["Time zone", project.timezone],
            ["Status", project.status.toLowerCase()],
          ]}
        />
      </SettingsPage>
    );
  }
  return (
    <SettingsPage ctx={ctx} project={project} tab="general">
      <section class="panel" aria-labelledby="details-heading">
        <h3 id="details-heading">Event details</h3>
        <Form action={base} csrf={ctx.csrf} label="Event details">
          <FormError state={props.state} />
          <ProjectFields state={props.state} />
          <div class="form-actions">
            <SubmitButton>Save changes</SubmitButton>
          </div>
        </Form>
      </section>
      <section class="panel" aria-labelledby="status-heading">
        <h3 id="status-heading">Status</h3>
        <p>{statusText[project.status]}</p>
        <Form action={`${base}/status`} csrf={ctx.csrf} label="Status" class="button-row">
          {statusActions[project.status].map((action) => (
            <SubmitButton name="status" value={action.status} variant={action.variant}>
              {action.label}
            </SubmitButton>
          ))}
        </Form>
      </section>
      {can(props.access, "project.delete") ? (
        <DeletePanel ctx={ctx} project={project} state={props.deleteState ?? formState()} />
      ) : null}
      <EventPagePanel
        ctx={ctx}
        projectId={project.id}
        published={project.status === "PUBLISHED"}
        settings={props.eventPage}
      />
      <PaymentsPanel ctx={ctx} projectId={project.id} settings={props.payments} />
    </SettingsPage>
  );
}

/** Project settings: the General tab (the API and Integrations tabs live in `../apps/`). */
export function registerSettingsPages(app: FastifyInstance): void {
  const { services } = app;
  registerEventPageSettings(app);
  registerPaymentSettings(app);

  /**
   * The General tab with the project as stored; `states` carries the values and errors of the form
   * that failed (the project form or the delete panel), `status` its HTTP status.
   */
  async function sendGeneral(
    request: FastifyRequest<{ Params: { projectId: string } }>,
    reply: FastifyReply,
    states: { state?: FormState; deleteState?: FormState } = {},
    status = 200,
  ) {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const project = await services.projects.get(actor, access.projectId);
    const eventPage = await services.eventPage.settings(actor, access.projectId);
    const payments = {
      ...(await services.orders.settings(actor, access.projectId)),
      stripe: await services.stripeAccounts.status(actor, access.projectId),
      stripeWebhookUrl: `${services.config.baseUrl}/payments/stripe/${access.projectId}`,
      timezone: project.timezone,
    };
    return sendPage(
      reply,
      <GeneralTab
        ctx={pageContext(request, reply)}
        project={project}
        access={access}
        state={states.state ?? formState(projectFormValues(project))}
        deleteState={states.deleteState}
        eventPage={eventPage}
        payments={payments}
      />,
      status,
    );
  }

  app.get<{ Params: { projectId: string } }>("/b/:projectId/settings", (request, reply) =>
    sendGeneral(request, reply),
  );

  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings", async (request, reply) => {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const values = formValues(request.body);
    try {
      const project = await services.projects.update(actor, access.projectId, projectInputFromForm(values));
      // The Overview has the same buttons; its form says so, and the organizer stays there.
      const back = values.from === "overview" ? `/b/${project.id}` : `/b/${project.id}/settings`;
      return redirectTo(request, reply, back, {
        kind: "success",
        text: "Changes saved.",
      });
    } catch (error) {
      return sendGeneral(request, reply, { state: stateFromError(error, values) }, httpStatusOf(error));
    }
  });

  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings/delete", async (request, reply) => {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const values = formValues(request.body);
    try {
      const deleted = await services.projects.delete(actor, access.projectId, values.confirmation ?? "");
      return redirectTo(request, reply, "/", {
        kind: "success",
        text: `Project “${deleted.name}” was deleted.`,
      });
    } catch (error) {
      return sendGeneral(request, reply, { deleteState: stateFromError(error, values) }, httpStatusOf(error));
    }
  });

  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings/status", async (request, reply) => {
    const actor = actorOf(request);
    const status = formValues(request.body).status as ProjectStatus;
    const project = await services.projects.update(actor, request.params.projectId, { status });
    const text = {
      DRAFT: "The project is a draft again.",
      PUBLISHED: "The project is published.",
      ARCHIVED: "The project is archived.",
    };
    // The Overview has the same buttons; its form says so, and the organizer stays there.
    const back =
      formValues(request.body).from === "overview" ? `/b/${project.id}` : `/b/${project.id}/settings`;
    return redirectTo(request, reply, back, {
      kind: "success",
      text: text[project.status],
    });
  });
}
