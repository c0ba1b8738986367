import type { FastifyInstance, FastifyReply } from "fastify";
import { httpStatusOf } from "../../errors.js";
import type { App } from "../../modules/apps/apps.service.js";
import type { OAuthClient } from "../../modules/oauth/oauth.clients.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import type { ProjectPageData } from "../pages/project-page.js";
import { Facts } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton, TextAreaField } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { appPath } from "./api-tab.js";
import { AppFrame, type AppRequest, loadAppPage } from "./app-details.js";
import { SecretDialog, whenUtc } from "./app-ui.js";

function OAuthTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  app: App;
  client: OAuthClient | null;
  state: FormState;
  secret?: string | undefined;
}) {
  const { app, ctx, client } = props;
  const path = `${appPath(app)}/oauth`;
  return (
    <AppFrame ctx={ctx} data={props.data} app={app} tab="oauth">
      <p class="tab-lead">
        Install your app through OAuth 2.0 (authorization code with PKCE): each organizer's consent gives your
        app an access token for their project, valid for an hour, and a refresh token to renew it. See the{" "}
        <a href="/graphql/reference/guides/oauth">OAuth guide</a>.
      </p>
      <Facts
        items={[
          ["Client id", <code>{app.id}</code>],
          ["Client secret", client ? <code>evs_…{client.secretLast4}</code> : "Not created yet"],
          ["Secret created", whenUtc(client?.secretCreatedAt ?? null)],
        ]}
      />
      <section class="panel spaced narrow-panel" aria-labelledby="redirect-heading">
        <h4 id="redirect-heading">Redirect URIs</h4>
        <Form action={path} csrf={ctx.csrf} label="Redirect URIs">
          <FormError state={props.state} />
          <TextAreaField
            name="redirectUris"
            label="Redirect URIs"
            required
            rows={3}
            state={props.state}
            hint="One per line, https:// (http:// only for localhost). A request's redirect_uri must match one exactly."
          />
          <div class="form-actions">
            <SubmitButton>{client ? "Save redirect URIs" : "Save and create client secret"}</SubmitButton>
          </div>
        </Form>
      </section>
      {client ? (
        <section class="panel spaced narrow-panel" aria-labelledby="secret-heading">
          <h4 id="secret-heading">Client secret</h4>
          <p>
            Regenerating issues a new secret, shown once; the current one stops working at the token endpoint
            at once. Installs and their tokens stay.
          </p>
          <Form
            action={`${path}/secret`}
            csrf={ctx.csrf}
            label="Regenerate client secret"
            confirm="Regenerate the client secret? The current one stops working at once."
          >
            <SubmitButton variant="secondary">Regenerate client secret</SubmitButton>
          </Form>
        </section>
      ) : null}
      {props.secret ? (
        <SecretDialog what="client secret" id="secret" secret={props.secret} closeTo={path}>
          Your app's server sends it to the token endpoint with its client id. It is shown only this once:
          store it like a password. If you lose it, regenerate it.
        </SecretDialog>
      ) : null}
    </AppFrame>
  );
}

/** App details → OAuth: the client id, redirect URIs and the client secret (shown once). */
export function registerOAuthTab(app: FastifyInstance): void {
  const { services } = app;
  const route = "/b/:projectId/settings/api/apps/:appId/oauth";

  async function show(
    request: AppRequest,
    reply: FastifyReply,
    form: { state?: FormState; status?: number; secret?: string | undefined } = {},
  ) {
    const { data, found } = await loadAppPage(app, request);
    const client = await services.oauth.clientOf(data.actor, found.id);
    const state = form.state ?? formState({ redirectUris: client?.redirectUris.join("\n") ?? "" });
    return sendPage(
      reply,
      <OAuthTab
        ctx={pageContext(request, reply)}
        data={data}
        app={found}
        client={client}
        state={state}
        secret={form.secret}
      />,
      form.status,
    );
  }

  app.get(route, async (request: AppRequest, reply) => show(request, reply));

  app.post(route, async (request: AppRequest, reply) => {
    const { data, found } = await loadAppPage(app, request);
    const values = formValues(request.body);
    try {
      const { secret } = await services.oauth.saveClient(data.actor, {
        appId: found.id,
        redirectUris: values.redirectUris ?? "",
      });
      if (secret) return show(request, reply, { secret });
      return redirectTo(request, reply, `${appPath(found)}/oauth`, {
        kind: "success",
        text: "Changes saved.",
      });
    } catch (error) {
      return show(request, reply, { state: stateFromError(error, values), status: httpStatusOf(error) });
    }
  });

  app.post(`${route}/secret`, async (request: AppRequest, reply) => {
    const { data, found } = await loadAppPage(app, request);
    const { secret } = await services.oauth.rotateClientSecret(data.actor, found.id);
    return show(request, reply, { secret });
  });
}
