import type { FastifyInstance, FastifyRequest } from "fastify";
import { httpStatusOf } from "../../errors.js";
import { can } from "../../modules/access/policy.js";
import type { App } from "../../modules/apps/apps.service.js";
import { type PageContext, pageContext } from "../context.js";
import { formList, formValues, optional, stateFromError } from "../form-data.js";
import { loadProjectPage, type ProjectPageData } from "../pages/project-page.js";
import { SettingsPage } from "../pages/settings.js";
import { NewTestProjectButton } from "../pages/test-projects.js";
import { DataTable, EmptyState, Notice } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import {
  AppFields,
  appUrlsFromForm,
  CreatedBy,
  maskedToken,
  PermissionChips,
  TokenDialog,
  whenUtc,
} from "./app-ui.js";

type ProjectRequest = FastifyRequest<{ Params: { projectId: string } }>;

/** The address of an app's details page (under its home project's API settings). */
export function appPath(app: Pick<App, "id" | "projectId">): string {
  return `/b/${app.projectId}/settings/api/apps/${app.id}`;
}

function AppsTable(props: { apps: App[]; canManage: boolean }) {
  return (
    <DataTable
      caption="Apps created in this project"
      columns={["App", "Permissions", "Token", "Last used", { label: "Requests (30 days)", numeric: true }]}
    >
      {props.apps.map((app) => (
        <tr>
          <th scope="row">
            {props.canManage ? <a href={appPath(app)}>{app.name}</a> : app.name}
            {app.description ? <div class="muted small">{app.description}</div> : null}
            <CreatedBy app={app} />
          </th>
          <td>
            <PermissionChips permissions={app.permissions} />
          </td>
          <td>
            <code>{maskedToken(app)}</code>
          </td>
          <td class="muted">{whenUtc(app.lastUsedAt)}</td>
          <td class="num">{app.requestsLast30Days}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function ApiTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  apps: App[];
  state: FormState;
  checked: readonly string[];
  created?: { app: App; token: string };
}) {
  const { project, access } = props.data;
  const base = `/b/${project.id}/settings/api`;
  return (
    <SettingsPage ctx={props.ctx} project={project} tab="api">
      <p class="tab-lead">
        Apps read and change this event's data through the GraphQL API at <code>/api/graphql</code>. An app
        reaches this project with its token, and other organizers' projects once they connect it. See the{" "}
        <a href="/graphql/reference/">API reference</a> and try queries in the{" "}
        <a href="/graphql/explorer/">explorer</a>.
      </p>
      {project.isTest ? null : (
        <div class="tab-lead">
          <p>To build and try an app without touching this event's data, make a test project of demo data.</p>
          <NewTestProjectButton csrf={props.ctx.csrf} />
        </div>
      )}
      {props.apps.length === 0 ? (
        <EmptyState title="No apps yet">
          <p>Create an app to get an API token for this project and a link other organizers can connect.</p>
        </EmptyState>
      ) : (
        <AppsTable apps={props.apps} canManage={can(access, "apps.manage")} />
      )}
      {can(access, "apps.manage") ? (
        <section class="panel spaced narrow-panel" aria-labelledby="add-app-heading">
          <h3 id="add-app-heading">Add app</h3>
          <Form action={`${base}/apps`} csrf={props.ctx.csrf} label="Add app">
            <FormError state={props.state} />
            <AppFields state={props.state} checked={props.checked} />
            <div class="form-actions">
              <SubmitButton>Create app</SubmitButton>
            </div>
          </Form>
        </section>
      ) : (
        <Notice kind="info">Only the project's owners and admins can add and change apps.</Notice>
      )}
      {props.created ? (
        <TokenDialog
          token={props.created.token}
          appName={props.created.app.name}
          closeTo={appPath(props.created.app)}
          pageUrl={base}
        />
      ) : null}
    </SettingsPage>
  );
}

/** Project settings → API: the project's apps, the Add app form and the one showing of a new token. */
export function registerApiTab(app: FastifyInstance): void {
  const { services } = app;

  app.get("/b/:projectId/settings/api", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const apps = await services.apps.listForProject(data.actor, data.project.id);
    return sendPage(
      reply,
      <ApiTab ctx={pageContext(request, reply)} data={data} apps={apps} state={formState()} checked={[]} />,
    );
  });

  // The new token is rendered into this POST's own response and nowhere else: it is never stored
  // (not in a session, cookie, flash, URL or server-side cache), so once this page is left it is gone.
  // This works unchanged behind several server processes, which a one-time store would not.
  app.post("/b/:projectId/settings/api/apps", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    const checked = formList(request.body, "permissions");
    try {
      const created = await services.apps.createApp(data.actor, {
        projectId: data.project.id,
        name: values.name ?? "",
        description: optional(values.description) ?? null,
        permissions: checked,
        ...appUrlsFromForm(values),
      });
      const apps = await services.apps.listForProject(data.actor, data.project.id);
      return sendPage(
        reply,
        <ApiTab
          ctx={pageContext(request, reply)}
          data={data}
          apps={apps}
          state={formState()}
          checked={[]}
          created={created}
        />,
      );
    } catch (error) {
      const state = stateFromError(error, values);
      const apps = await services.apps.listForProject(data.actor, data.project.id);
      return sendPage(
        reply,
        <ApiTab ctx={pageContext(request, reply)} data={data} apps={apps} state={state} checked={checked} />,
        httpStatusOf(error),
      );
    }
  });
}
