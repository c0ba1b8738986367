import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, badInput, ErrorCode, httpStatusOf } from "../../errors.js";
import { dashboardPolicy } from "../../http/security-headers.js";
import type { Actor } from "../../modules/access/actor.js";
import { can } from "../../modules/access/policy.js";
import type { ConnectInfo } from "../../modules/apps/consent.js";
import type { Link } from "../../modules/apps/links.service.js";
import type { Services } from "../../services.js";
import { actorOf, type PageContext, pageContext, redirectTo } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { Badge, EmptyState, Notice } from "../ui/components.js";
import { EditForm, type FormState, formState, type Option, SelectField } from "../ui/forms.js";
import { Layout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { PermissionDescriptions } from "./app-ui.js";

type ConnectRequest = FastifyRequest<{
  Params: { appId: string };
  Querystring: { project?: string; state?: string };
}>;

// The app's opaque `state` (OAuth's anti-forgery value) is echoed back to its redirect URL: printable
// ASCII without spaces, bounded so it fits the login round trip's `next` and any server's URL limit.
const statePattern = /^[\x21-\x7e]{1,500}$/;

/** The `state` of a connect request: absent, or valid; anything else is refused with a 400. */
function stateOf(value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string" && statePattern.test(value)) return value;
  throw badInput([
    { field: ["state"], message: "must be at most 500 printable ASCII characters without spaces" },
  ]);
}

/** The app's redirect URL with the answer's parameters added (any query it already has is kept). */
function backToApp(redirectUrl: string, answer: Record<string, string | undefined>): string {
  const url = new URL(redirectUrl);
  for (const [name, value] of Object.entries(answer))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Who is looking at the connect page, and what they may connect. */
export interface Viewer {
  /** Projects the organizer owns or administers, other than the app's home project. */
  projects: Option[];
  /** The app's own developer (a manager of its home project), previewing their link. */
  isDeveloper: boolean;
}

/**
 * Where the consent page posts and returns, when it serves the OAuth authorization endpoint
 * (oauth-consent.tsx) rather than the connect link: the request's parameters ride in hidden fields.
 */
export interface ConsentRoute {
  action: string;
  /** This page's own address, for the way back through log in. */
  here: string;
  cancel: string;
  hidden: Record<string, string>;
  /** What the install's tokens will be limited to, when less than the app asks for. */
  scopes: string[] | undefined;
}

/** The consent page, for the connect link and for the OAuth authorization endpoint. */
export function ConnectPage(props: {
  ctx: PageContext;
  info: ConnectInfo;
  viewer: Viewer | undefined;
  state: FormState;
  appState: string | undefined;
  route?: ConsentRoute;
}) {
  const { ctx, info, viewer, appState, route } = props;
  const action = route?.action ?? `/connect/${encodeURIComponent(info.app.id)}`;
  // The state rides along through log in and sign up (in `next`), back to this page.
  const here =
    route?.here ?? (appState === undefined ? action : `${action}?state=${encodeURIComponent(appState)}`);
  const blocked = !info.homeProjectVerified && !viewer?.isDeveloper;
  const cancel =
    route?.cancel ??
    (info.app.redirectUrl
      ? backToApp(info.app.redirectUrl, { error: "access_denied", state: appState })
      : "/");
  return (
    <Layout ctx={ctx} title={`Connect ${info.app.name}`} narrow>
      <div class="auth-card connect-card">
        <p class="muted">An app wants to connect to one of your projects</p>
        <h1>{info.app.name}</h1>
        {info.app.description ? <p class="lead">{info.app.description}</p> : null}
        <AppIdentity info={info} />
        {viewer?.isDeveloper ? (
          <Notice kind="info">
            This is your app. Organizers who open this link see this page.
            {info.homeProjectVerified
              ? null
              : " Until you verify your email address, only your own project team can authorize it."}
          </Notice>
        ) : null}
        <h2>It will be able to</h2>
        <PermissionDescriptions permissions={info.permissions.map((p) => p.name)} />
        {route?.scopes ? (
          <p class="hint">
            This install asks for access tokens limited to: <strong>{route.scopes.join(", ")}</strong>. They
            last an hour and end at once when you revoke the app.
          </p>
        ) : null}
        <p class="hint">
          You can revoke its access at any time on the project's Integrations tab in the settings.
        </p>
        {blocked ? (
          <Notice kind="error">
            This app cannot be connected yet: its developer has not verified their email address. Ask the
            developer to verify it, then open this link again.
          </Notice>
        ) : !viewer ? (
          <div class="form-actions">
            <a class="button button-primary" href={`/login?next=${encodeURIComponent(here)}`}>
              Log in to connect
            </a>
            <a class="button button-secondary" href={`/signup?next=${encodeURIComponent(here)}`}>
              Sign up
            </a>
          </div>
        ) : viewer.projects.length === 0 ? (
          <EmptyState title="No project to connect">
            <p>
              You can connect projects you own or administer. Create a project first, then open this link
              again.
            </p>
            <a class="button button-primary" href="/projects/new">
              New project
            </a>
          </EmptyState>
        ) : (
          <EditForm
            action={action}
            csrf={ctx.csrf}
            label="Authorize app"
            state={props.state}
            submit="Authorize"
            cancel={cancel}
          >
            {appState === undefined || route ? null : <input type="hidden" name="state" value={appState} />}
            {Object.entries(route?.hidden ?? {}).map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
            {/* A re-approval from Integrations returns there, not to an app that asked for nothing. */}
            {props.state.values.review ? <input type="hidden" name="review" value="1" /> : null}
            {/* What this page showed: the grant is exactly this, or nothing (see apps.authorize). */}
            <input type="hidden" name="permissions" value={info.permissions.map((p) => p.name).join(" ")} />
            <SelectField
              name="projectId"
              label="Project"
              required
              state={props.state}
              options={viewer.projects}
              hint="Only projects you own or administer are listed."
            />
          </EditForm>
        )}
        {(route || info.app.redirectUrl) && (blocked || !viewer || viewer.projects.length === 0) ? (
          <p class="auth-alt">
            <a href={cancel}>Cancel and go back to {info.app.name}</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

/** Who built the app and where to read about it: what an organizer checks before trusting it. */
function AppIdentity(props: { info: ConnectInfo }) {
  const { developer, app } = props.info;
  return (
    <dl class="facts app-identity">
      <div>
        <dt>Developer</dt>
        <dd>
          {developer ? developer.name : <span class="muted">Unknown</span>}
          {developer?.verifiedEmailDomain ? (
            <div class="small">
              <Badge tone="success">verified</Badge> email at <strong>{developer.verifiedEmailDomain}</strong>
            </div>
          ) : (
            <div class="small muted">Email address not verified</div>
          )}
        </dd>
      </div>
      {app.websiteUrl ? (
        <div>
          <dt>Website</dt>
          <dd>
            <a href={app.websiteUrl} rel="noopener noreferrer nofollow" class="break-all">
              {app.websiteUrl}
            </a>
          </dd>
        </div>
      ) : null}
      {app.privacyPolicyUrl ? (
        <div>
          <dt>Privacy policy</dt>
          <dd>
            <a href={app.privacyPolicyUrl} rel="noopener noreferrer nofollow" class="break-all">
              {app.privacyPolicyUrl}
            </a>
          </dd>
        </div>
      ) : (
        <div>
          <dt>Privacy policy</dt>
          <dd class="muted">None given</dd>
        </div>
      )}
    </dl>
  );
}

/** Lets the Authorize form's redirect reach the app (see dashboardPolicy). */
function allowRedirectToApp(reply: FastifyReply, info: ConnectInfo): void {
  if (info.app.redirectUrl) allowRedirectTo(reply, info.app.redirectUrl);
}

/** Lets a form's redirect reach `url`'s origin (form-action of the page's policy). */
export function allowRedirectTo(reply: FastifyReply, url: string): void {
  reply.header("content-security-policy", dashboardPolicy([new URL(url).origin]));
}

/** Who is looking at a consent page: the projects they may connect, and whether the app is theirs. */
export async function viewerOf(
  services: Services,
  request: FastifyRequest,
  appId: string,
): Promise<Viewer | undefined> {
  const user = request.dashboard.session?.user;
  if (!user) return undefined;
  const actor: Actor = { kind: "user", userId: user.id };
  // getApp answers only the managers of the app's home project: that is how the developer is known.
  const own = await services.apps.getApp(actor, appId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return undefined;
    throw error;
  });
  const projects = (await services.projects.listForUser(user.id))
    .filter((p) => can({ actor, role: p.role }, "integrations.manage") && p.id !== own?.projectId)
    .map((p) => ({ value: p.id, label: `${p.name} (${p.id})` }));
  return { projects, isDeveloper: own !== undefined };
}

/**
 * Authorizes what the consent page's form showed: the project chosen and the permissions listed
 * (a form without that field showed nothing, so it may grant nothing). When refused, how to show the
 * page again: the form's state (the chosen fields in `keep` stay on FORBIDDEN and CONFLICT, with the
 * reason) and the app's info, re-read after a CONFLICT so the page shows its new permissions.
 */
export async function authorizeShown(
  services: Services,
  actor: Actor,
  info: ConnectInfo,
  values: Record<string, string>,
  keep: readonly string[],
): Promise<{ link: Link } | { error: unknown; state: FormState; info: ConnectInfo }> {
  try {
    const link = await services.apps.authorize(actor, {
      appId: info.app.id,
      projectId: values.projectId ?? "",
      shownPermissions: values.permissions ?? "",
    });
    return { link };
  } catch (error) {
    const code = error instanceof AppError ? error.code : undefined;
    const state: FormState =
      (code === ErrorCode.FORBIDDEN || code === ErrorCode.CONFLICT) && error instanceof AppError
        ? {
            values: Object.fromEntries(keep.map((k) => [k, values[k] ?? ""])),
            errors: {},
            formError: error.message,
          }
        : stateFromError(error, values);
    const current = code === ErrorCode.CONFLICT ? await services.apps.connectInfo(info.app.id) : info;
    return { error, state, info: current };
  }
}

/** The connect (consent) page behind each app's connect link, and its Authorize form. */
export function registerConnectPages(app: FastifyInstance): void {
  const { services } = app;

  app.get("/connect/:appId", async (request: ConnectRequest, reply) => {
    const info = await services.apps.connectInfo(request.params.appId);
    const viewer = await viewerOf(services, request, info.app.id);
    const appState = stateOf(request.query.state);
    allowRedirectToApp(reply, info);
    // A review link from the Integrations tab preselects the project to re-approve.
    const state = formState({
      projectId: request.query.project ?? "",
      review: request.query.project && appState === undefined ? "1" : "",
    });
    return sendPage(
      reply,
      <ConnectPage
        ctx={pageContext(request, reply)}
        info={info}
        viewer={viewer}
        state={state}
        appState={appState}
      />,
    );
  });

  app.post("/connect/:appId", async (request: ConnectRequest, reply) => {
    const info = await services.apps.connectInfo(request.params.appId);
    const values = formValues(request.body);
    const appState = stateOf(values.state);
    const attempt = await authorizeShown(services, actorOf(request), info, values, ["projectId", "review"]);
    if ("link" in attempt) {
      const { link } = attempt;
      // OAuth's shape: the app learns which project it got and checks the state it sent.
      if (info.app.redirectUrl && values.review !== "1") {
        return redirectTo(
          request,
          reply,
          backToApp(info.app.redirectUrl, { project_id: link.projectId, state: appState }),
        );
      }
      return redirectTo(request, reply, `/b/${link.projectId}/settings/integrations`, {
        kind: "success",
        text: `“${info.app.name}” is connected to ${link.projectName}.`,
      });
    }
    const viewer = await viewerOf(services, request, info.app.id);
    allowRedirectToApp(reply, attempt.info);
    return sendPage(
      reply,
      <ConnectPage
        ctx={pageContext(request, reply)}
        info={attempt.info}
        viewer={viewer}
        state={attempt.state}
        appState={appState}
      />,
      httpStatusOf(attempt.error),
    );
  });
}
