import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { OidcConfig } from "../../config.js";
import { AppError } from "../../errors.js";
import { passwordsOffMessage } from "../../modules/accounts/auth.service.js";
import { type PendingSignOn, SignOnFailed } from "../../modules/accounts/sso/oidc-client.js";
import {
  pageContext,
  redirectTo,
  safeReturnPath,
  sessionClient,
  sessionCookie,
  setSessionCookie,
} from "../context.js";
import { Notice } from "../ui/components.js";
import { Layout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";

const startPath = "/login/oidc";
const pendingCookie = "evg_oidc";
// Long enough to type a password and answer a second factor at the provider, short enough that a
// forgotten tab's state is soon worthless.
const pendingMaxAgeSeconds = 10 * 60;

/** "Log in with <name>": the link that starts a single sign-on, keeping the page to return to. */
export function SsoButton(props: { sso: OidcConfig; next: string; primary?: boolean }) {
  const href = props.next === "/" ? startPath : `${startPath}?next=${encodeURIComponent(props.next)}`;
  return (
    <p class="sso">
      <a class={`button ${props.primary ? "button-primary" : "button-secondary"}`} href={href}>
        Log in with {props.sso.name}
      </a>
    </p>
  );
}

/** OIDC_ONLY: what the sign-up and password pages answer instead of their forms (403). */
export function sendPasswordsOffPage(
  request: FastifyRequest,
  reply: FastifyReply,
  sso: OidcConfig,
  title: string,
  next: string,
): FastifyReply {
  const ctx = pageContext(request, reply);
  const page = (
    <Layout ctx={ctx} title={title} narrow>
      <div class="auth-card">
        <h1>{title}</h1>
        <Notice kind="info">{passwordsOffMessage(sso.name)}</Notice>
        <SsoButton sso={sso} next={next} primary />
      </div>
    </Layout>
  );
  return sendPage(reply, page, 403);
}

// Scoped to the two addresses of the flow, httpOnly, signed (it cannot be forged or read by a page),
// SameSite=Lax because the provider sends the browser back with a cross-site top-level GET.
function pendingCookieOptions(request: FastifyRequest) {
  return {
    path: startPath,
    httpOnly: true,
    sameSite: "lax" as const,
    secure: request.dashboard.secureCookies,
    signed: true,
  };
}

function readPending(request: FastifyRequest): PendingSignOn | undefined {
  const raw = request.cookies[pendingCookie];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    const value = JSON.parse(unsigned.value) as Partial<PendingSignOn>;
    const fields = [value.state, value.nonce, value.codeVerifier, value.next];
    if (!fields.every((field) => typeof field === "string")) return undefined;
    return value as PendingSignOn;
  } catch {
    return undefined;
  }
}

function SignOnProblemPage(props: {
  request: FastifyRequest;
  reply: FastifyReply;
  sso: OidcConfig;
  message: string;
}) {
  const ctx = pageContext(props.request, props.reply);
  return (
    <Layout ctx={ctx} title="Log-in failed" narrow>
      <div class="auth-card">
        <h1>Log-in failed</h1>
        <Notice kind="error">{props.message}</Notice>
        <SsoButton sso={props.sso} next="/" primary />
        {props.sso.only ? null : (
          <p class="auth-alt">
            <a href="/login">Log in with a password</a>
          </p>
        )}
      </div>
    </Layout>
  );
}

/** Single sign-on through the OpenID Connect provider (OIDC_*): the start and the callback. */
export function registerSingleSignOnPages(app: FastifyInstance): void {
  const { services } = app;
  const sso = services.sso;
  if (!sso) return;
  const problem = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendPage(
      reply,
      <SignOnProblemPage request={request} reply={reply} sso={sso.config} message={message} />,
      status,
    );

  app.get<{ Querystring: { next?: string } }>(startPath, async (request, reply) => {
    const next = safeReturnPath(request.query.next);
    if (request.dashboard.session) return redirectTo(request, reply, next);
    let started: Awaited<ReturnType<typeof sso.client.start>>;
    try {
      started = await sso.client.start(next);
    } catch (error) {
      if (!(error instanceof SignOnFailed)) throw error;
      request.log.warn({ err: error }, "OpenID Connect provider unreachable");
      return problem(
        request,
        reply,
        502,
        `${sso.config.name} cannot be reached right now. Try again in a minute.`,
      );
    }
    reply.setCookie(pendingCookie, JSON.stringify(started.pending), {
      ...pendingCookieOptions(request),
      maxAge: pendingMaxAgeSeconds,
    });
    return reply.code(303).header("location", started.url).send();
  });

  app.get(`${startPath}/callback`, async (request, reply) => {
    const pending = readPending(request);
    // Used once: whatever happens next, this browser's state is spent.
    reply.clearCookie(pendingCookie, pendingCookieOptions(request));
    if (!pending) {
      return problem(request, reply, 400, "This log-in took too long or was started elsewhere. Start again.");
    }
    const callbackUrl = new URL(request.url, "http://callback.invalid");
    let identity: Awaited<ReturnType<typeof sso.client.finish>>;
    try {
      identity = await sso.client.finish(callbackUrl, pending);
    } catch (error) {
      if (!(error instanceof SignOnFailed)) throw error;
      // The reason goes to the log only: a refused state, code or token tells a visitor nothing useful.
      request.log.warn({ err: error }, "Single sign-on refused");
      const message =
        error.reason === "unreachable"
          ? `${sso.config.name} cannot be reached right now. Try again in a minute.`
          : `${sso.config.name} did not complete the log-in (it was cancelled, expired or not valid). Start again.`;
      return problem(request, reply, error.reason === "unreachable" ? 502 : 400, message);
    }
    try {
      const { cookieValue } = await sso.service.logIn(identity, sessionClient(request));
      const previous = request.cookies[sessionCookie];
      if (previous) await services.sessions.end(previous);
      setSessionCookie(request, reply, cookieValue);
      return redirectTo(request, reply, safeReturnPath(pending.next));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      request.log.warn({ subject: identity.subject, code: error.code }, "Single sign-on account refused");
      return problem(request, reply, 403, error.message);
    }
  });
}
