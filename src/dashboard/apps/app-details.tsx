import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import { httpStatusOf, notFound } from "../../errors.js";
import type { App } from "../../modules/apps/apps.service.js";
import type { Link } from "../../modules/apps/links.service.js";
import type { Grant } from "../../modules/oauth/grants.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { formList, formValues, stateFromError } from "../form-data.js";
import { loadProjectPage, type ProjectPageData } from "../pages/project-page.js";
import { SettingsPage } from "../pages/settings.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, EmptyState, Facts, Notice, TabPanel, Tabs } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { appPath } from "./api-tab.js";
import { ApiVersionPanel, registerApiVersionRoute } from "./api-version.js";
import {
  AppFields,
  appUrlsFromForm,
  CreatedBy,
  maskedToken,
  PermissionChips,
  TokenDialog,
  whenUtc,
} from "./app-ui.js";
import { GrantsTable } from "./grants-table.js";

/** A request for one app page: the home project and the app in the address. */
export type AppRequest = FastifyRequest<{ Params: { projectId: string; appId: string } }>;

type AppTab = "settings" | "linked" | "webhooks" | "oauth";

/** The app page around one of its tabs (Settings, Linked projects, Webhooks). */
export function AppFrame(props: {
  ctx: PageContext;
  data: ProjectPageData;
  app: App;
  tab: AppTab;
  children: ComponentChildren;
}) {
  const path = appPath(props.app);
  return (
    <SettingsPage ctx={props.ctx} project={props.data.project} tab="api">
      <p class="breadcrumb">
        <a href={`/b/${props.data.project.id}/settings/api`}>All apps</a> <span aria-hidden="true">/</span>
      </p>
      <h3 class="app-title">{props.app.name}</h3>
      <Tabs
        label="App"
        current={props.tab}
        tabs={[
          { id: "settings", label: "Settings", href: path },
          { id: "linked", label: "Linked projects", href: `${path}/linked-projects` },
          { id: "webhooks", label: "Webhooks", href: `${path}/webhooks` },
          { id: "oauth", label: "OAuth", href: `${path}/oauth` },
        ]}
      />
      <TabPanel id={props.tab}>{props.children}</TabPanel>
    </SettingsPage>
  );
}

function appFormValues(app: App): Record<string, string> {
  return {
    name: app.name,
    description: app.description ?? "",
    redirectUrl: app.redirectUrl ?? "",
    websiteUrl: app.websiteUrl ?? "",
    privacyPolicyUrl: app.privacyPolicyUrl ?? "",
  };
}

function SettingsTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  app: App;
  state: FormState;
  checked: readonly string[];
  newToken?: string;
}) {
  const { app, ctx } = props;
  const path = appPath(app);
  return (
    <AppFrame ctx={ctx} data={props.data} app={app} tab="settings">
      <Facts
        items={[
          ["API token", <code>{maskedToken(app)}</code>],
          ["Token created", whenUtc(app.tokenCreatedAt)],
          ["Last used", whenUtc(app.lastUsedAt)],
          ["Requests (30 days)", app.requestsLast30Days],
          ["Created by", <CreatedBy app={app} bare />],
        ]}
      />
      {app.createdBy && !app.createdBy.stillMember ? (
        <Notice kind="info">
          {app.createdBy.name}, who created this app, is no longer a member of this project. The app stays
          with the project and keeps working. If its token was not regenerated since they left, regenerate it
          below: they may still have a copy.
        </Notice>
      ) : null}
      <section class="panel spaced narrow-panel" aria-labelledby="app-settings-heading">
        <h4 id="app-settings-heading">App details</h4>
        <Form action={path} csrf={ctx.csrf} label="App details">
          <FormError state={props.state} />
          <AppFields state={props.state} checked={props.checked} />
          <p class="hint">
            Removing a permission takes effect at once everywhere. Projects already linked keep what they
            granted until their organizers approve an added permission.
          </p>
          <div class="form-actions">
            <SubmitButton>Save changes</SubmitButton>
          </div>
        </Form>
      </section>
      <ApiVersionPanel app={app} csrf={ctx.csrf} />
      <section class="panel spaced narrow-panel" aria-labelledby="token-heading">
        <h4 id="token-heading">API token</h4>
        <p>
          Regenerating issues a new token, shown once. The current token (<code>{maskedToken(app)}</code>)
          stops working at once.
        </p>
        <Form
          action={`${path}/token`}
          csrf={ctx.csrf}
          label="Regenerate token"
          confirm="Regenerate the token? The current token stops working at once."
        >
          <SubmitButton variant="secondary">Regenerate token</SubmitButton>
        </Form>
        <div class="danger-zone">
          <p>Deleting the app ends its access to this project and every linked project at once.</p>
          <Form
            action={`${path}/delete`}
            csrf={ctx.csrf}
            label="Delete app"
            confirm={`Delete the app “${app.name}”? Its token stops working and every linked project loses it.`}
          >
            <SubmitButton variant="danger">Delete app</SubmitButton>
          </Form>
        </div>
      </section>
      {props.newToken ? (
        <TokenDialog token={props.newToken} appName={app.name} closeTo={path} pageUrl={path} />
      ) : null}
    </AppFrame>
  );
}

function LinkedProjectsTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  app: App;
  links: Link[];
  grants: Grant[];
  verified: boolean;
}) {
  const { app, ctx } = props;
  const user = ctx.user;
  return (
    <AppFrame ctx={ctx} data={props.data} app={app} tab="linked">
      {props.verified ? null : (
        <Notice kind="info">
          <p>
            <strong>This project is unverified.</strong> Verify your email address so other organizers can
            connect this app: until the project's owner has verified their email, only this project's own team
            can authorize it.
          </p>
          {user && !user.emailVerified ? (
            <Form action="/verify-email/resend" csrf={ctx.csrf} label="Resend verification email">
              <SubmitButton variant="secondary">Resend verification email</SubmitButton>
            </Form>
          ) : null}
        </Notice>
      )}
      <section class="panel narrow-panel" aria-labelledby="connect-heading">
        <h4 id="connect-heading">Connect link</h4>
        <p>
          Share this link with organizers: it shows them your app's name and the permissions it requests, and
          lets them connect one of their projects. <a href={app.connectUrl}>Open it</a> to see what they see.
        </p>
        <div class="copy-field">
          <label for="connect-link" class="visually-hidden">
            Connect link
          </label>
          <input id="connect-link" type="text" readOnly value={app.connectUrl} />
          <button type="button" class="button button-secondary" data-copy="#connect-link">
            Copy
          </button>
        </div>
      </section>
      <h4 class="spaced">Linked projects</h4>
      {props.links.length === 0 ? (
        <EmptyState title="No linked projects yet">
          <p>When an organizer authorizes your app through the connect link, their project appears here.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Linked projects"
          columns={["Project", "Authorized by", "Authorized", "Granted permissions", "Status"]}
        >
          {props.links.map((link) => (
            <tr>
              <th scope="row">
                {link.projectName} <code class="project-id">{link.projectId}</code>
              </th>
              <td>
                {link.authorizedBy ? (
                  <>
                    {link.authorizedBy.name}
                    <div class="muted small">{link.authorizedBy.email}</div>
                  </>
                ) : (
                  <span class="muted">The operator</span>
                )}
              </td>
              <td class="muted">{formatDateTime(link.authorizedAt, "UTC")}</td>
              <td>
                <PermissionChips permissions={link.grantedPermissions} />
              </td>
              <td>
                {link.revokedAt ? (
                  <Badge tone="danger">revoked {formatDateTime(link.revokedAt, "UTC")}</Badge>
                ) : link.pendingPermissions.length > 0 ? (
                  <>
                    <Badge tone="warning">waiting for approval</Badge>
                    <div class="small muted">Not yet approved:</div>
                    <PermissionChips permissions={link.pendingPermissions} />
                  </>
                ) : (
                  <Badge tone="success">active</Badge>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.grants.length === 0 ? null : (
        <>
          <h4 class="spaced">OAuth installs</h4>
          <GrantsTable grants={props.grants} show="project" />
        </>
      )}
    </AppFrame>
  );
}

/**
 * The project page of an app's tab and the app itself. The app must belong to the project in the
 * address: an app id under another project is a 404.
 */
export async function loadAppPage(app: FastifyInstance, request: AppRequest) {
  const data = await loadProjectPage(app, request);
  const found = await app.services.apps.getApp(data.actor, request.params.appId);
  if (found.projectId !== data.project.id) throw notFound("App");
  return { data, found };
}

/** App details under the home project's API tab: Settings (edit, regenerate, delete) and Linked projects. */
export function registerAppDetailsPages(app: FastifyInstance): void {
  const { services } = app;

  const load = (request: AppRequest) => loadAppPage(app, request);
  registerApiVersionRoute(app, load);

  /** The Settings tab of `shown`: its saved values, unless a refused form's state is given. */
  function settingsTab(
    request: AppRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    shown: App,
    form: { state?: FormState; checked?: readonly string[]; status?: number; newToken?: string } = {},
  ) {
    return sendPage(
      reply,
      <SettingsTab
        ctx={pageContext(request, reply)}
        data={data}
        app={shown}
        state={form.state ?? formState(appFormValues(shown))}
        checked={form.checked ?? shown.permissions}
        newToken={form.newToken}
      />,
      form.status,
    );
  }

  app.get("/b/:projectId/settings/api/apps/:appId", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    return settingsTab(request, reply, data, found);
  });

  app.post("/b/:projectId/settings/api/apps/:appId", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    const values = formValues(request.body);
    const checked = formList(request.body, "permissions");
    try {
      await services.apps.updateApp(data.actor, {
        id: found.id,
        name: values.name ?? "",
        description: values.description ?? null,
        permissions: checked,
        ...appUrlsFromForm(values),
      });
      return redirectTo(request, reply, appPath(found), { kind: "success", text: "Changes saved." });
    } catch (error) {
      const state = stateFromError(error, values);
      return settingsTab(request, reply, data, found, { state, checked, status: httpStatusOf(error) });
    }
  });

  // Like creation, the new token is rendered into this response only (see the API tab).
  app.post("/b/:projectId/settings/api/apps/:appId/token", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    const { app: rotated, token } = await services.apps.rotateToken(data.actor, { id: found.id });
    return settingsTab(request, reply, data, rotated, { newToken: token });
  });

  app.post("/b/:projectId/settings/api/apps/:appId/delete", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    await services.apps.deleteApp(data.actor, { id: found.id });
    return redirectTo(request, reply, `/b/${data.project.id}/settings/api`, {
      kind: "success",
      text: `The app “${found.name}” was deleted; its token no longer works.`,
    });
  });

  app.get("/b/:projectId/settings/api/apps/:appId/linked-projects", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    const [links, info, grants] = await Promise.all([
      services.apps.listLinksForApp(data.actor, found.id),
      services.apps.connectInfo(found.id),
      services.oauth.grantsOfApp(data.actor, found.id),
    ]);
    return sendPage(
      reply,
      <LinkedProjectsTab
        ctx={pageContext(request, reply)}
        data={data}
        app={found}
        links={links}
        grants={grants}
        verified={info.homeProjectVerified}
      />,
    );
  });
}
