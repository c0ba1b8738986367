import type { FastifyInstance, FastifyRequest } from "fastify";
import { can } from "../../modules/access/policy.js";
import type { Integration } from "../../modules/apps/links.service.js";
import type { Grant } from "../../modules/oauth/grants.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { loadProjectPage, type ProjectPageData } from "../pages/project-page.js";
import { SettingsPage } from "../pages/settings.js";
import { formatDateTime } from "../time.js";
import { Badge, EmptyState, Notice } from "../ui/components.js";
import { Form } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { PermissionChips, whenUtc } from "./app-ui.js";
import { GrantsTable } from "./grants-table.js";

type ProjectRequest = FastifyRequest<{ Params: { projectId: string } }>;
type IntegrationRequest = FastifyRequest<{ Params: { projectId: string; appId: string } }>;

function IntegrationCard(props: {
  ctx: PageContext;
  projectId: string;
  integration: Integration;
  canManage: boolean;
}) {
  const { integration, projectId } = props;
  const { app } = integration;
  const granted = new Set(integration.grantedPermissions);
  const added = integration.requestedPermissions.filter((p) => !granted.has(p));
  return (
    <li class="card integration-card" aria-label={app.name}>
      <div class="card-main">
        <p class="card-title">
          {app.name} {integration.updateRequested ? <Badge tone="warning">update requested</Badge> : null}
        </p>
        {app.description ? <p class="muted">{app.description}</p> : null}
        <p class="small">Granted permissions:</p>
        <PermissionChips permissions={integration.grantedPermissions} />
        {integration.updateRequested ? (
          <div class="update-request">
            <p class="small">The app now also asks for:</p>
            <PermissionChips permissions={added} />
            {props.canManage ? (
              <a
                class="button button-secondary button-small"
                href={`/connect/${encodeURIComponent(app.id)}?project=${encodeURIComponent(projectId)}`}
              >
                Review and approve
              </a>
            ) : null}
          </div>
        ) : null}
        <p class="muted small">
          Authorized {formatDateTime(integration.authorizedAt, "UTC")} · Last used{" "}
          {whenUtc(integration.lastUsedAt)} · {integration.requestsLast30Days}{" "}
          {integration.requestsLast30Days === 1 ? "request" : "requests"} in the last 30 days
        </p>
      </div>
      {props.canManage ? (
        <div class="card-meta">
          <Form
            action={`/b/${projectId}/settings/integrations/${encodeURIComponent(app.id)}/revoke`}
            csrf={props.ctx.csrf}
            class="inline-form"
            label={`Revoke access of ${app.name}`}
            confirm={`Revoke the access of “${app.name}” to this project? It stops working at once.`}
          >
            <button type="submit" class="button button-danger button-small">
              Revoke access
            </button>
          </Form>
        </div>
      ) : null}
    </li>
  );
}

function IntegrationsTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  integrations: Integration[];
  grants: Grant[];
}) {
  const { project, access } = props.data;
  return (
    <SettingsPage ctx={props.ctx} project={project} tab="integrations">
      <p class="tab-lead">Apps that other developers built and an organizer connected to this project.</p>
      {props.integrations.length === 0 ? (
        <EmptyState title="No connected apps">
          <p>When you authorize an app through its connect link, it appears here and you can revoke it.</p>
        </EmptyState>
      ) : (
        <ul class="card-list" aria-label="Connected apps">
          {props.integrations.map((integration) => (
            <IntegrationCard
              ctx={props.ctx}
              projectId={project.id}
              integration={integration}
              canManage={can(access, "integrations.manage")}
            />
          ))}
        </ul>
      )}
      {props.grants.length === 0 ? null : (
        <section aria-labelledby="grants-heading" class="spaced">
          <h4 id="grants-heading">OAuth installs</h4>
          <p class="muted small">
            Apps installed through OAuth hold tokens for this project only, each valid for an hour and renewed
            by the app. Revoking an app's access above ends its tokens at once.
          </p>
          <GrantsTable grants={props.grants} show="app" />
        </section>
      )}
      {can(access, "integrations.manage") ? null : (
        <Notice kind="info">Only the project's owners and admins can connect and revoke apps.</Notice>
      )}
    </SettingsPage>
  );
}

/** Project settings → Integrations: the apps linked to the project, re-approval and Revoke access. */
export function registerIntegrationsTab(app: FastifyInstance): void {
  const { services } = app;

  app.get("/b/:projectId/settings/integrations", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const [integrations, grants] = await Promise.all([
      services.apps.listIntegrations(data.actor, data.project.id),
      services.oauth.grantsOfProject(data.actor, data.project.id),
    ]);
    return sendPage(
      reply,
      <IntegrationsTab
        ctx={pageContext(request, reply)}
        data={data}
        integrations={integrations}
        grants={grants}
      />,
    );
  });

  app.post(
    "/b/:projectId/settings/integrations/:appId/revoke",
    async (request: IntegrationRequest, reply) => {
      const data = await loadProjectPage(app, request);
      const integrations = await services.apps.listIntegrations(data.actor, data.project.id);
      const name = integrations.find((i) => i.app.id === request.params.appId)?.app.name ?? "The app";
      await services.apps.revokeLink(data.actor, { appId: request.params.appId, projectId: data.project.id });
      return redirectTo(request, reply, `/b/${data.project.id}/settings/integrations`, {
        kind: "success",
        text: `Access revoked: “${name}” can no longer reach this project.`,
      });
    },
  );
}
