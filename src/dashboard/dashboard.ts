import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { databaseRetryAfterSeconds } from "../db/availability.js";
import { AppError, badInput, ErrorCode, httpStatusFor, isUserError } from "../errors.js";
import { dashboardPolicy, setPageSecurityHeaders } from "../http/security-headers.js";
import { loadServerSecret } from "../modules/accounts/server-secrets.js";
import { hasControlCharacters } from "../shared/validation.js";
import { registerDeveloperPages } from "./apps/developer-pages.js";
import { registerAssetRoutes } from "./assets.js";
import { admitDashboardRequest } from "./budget.js";
import {
  CsrfError,
  clearSessionCookie,
  LoginRequired,
  pageContext,
  redirectTo,
  sessionClient,
  sessionCookie,
  verifyCsrf,
} from "./context.js";
import { registerAccountPages } from "./pages/account.js";
import { registerAgendaPages } from "./pages/agenda.js";
import { registerAttendeePages } from "./pages/attendees.js";
import { registerAuditLogPages } from "./pages/audit-log.js";
import { registerAuthPages } from "./pages/auth.js";
import { registerCheckInPages } from "./pages/check-in.js";
import { registerDiscountCodePages } from "./pages/discount-codes.js";
import { ForbiddenPage, NotFoundPage, ServerErrorPage } from "./pages/errors.js";
import { registerEventLanguagePages } from "./pages/event-languages.js";
import { registerInvitationPages } from "./pages/invitation.js";
import { registerMemberPages } from "./pages/members.js";
import { registerMessagePages } from "./pages/messages.js";
import { registerOrderPages } from "./pages/orders.js";
import { registerProjectPages } from "./pages/projects.js";
import { registerQuestionPages } from "./pages/questions.js";
import { registerSettingsPages } from "./pages/settings.js";
import { registerSingleSignOnPages } from "./pages/single-sign-on.js";
import { registerSpeakerPages } from "./pages/speakers.js";
import { registerTestProjectPages } from "./pages/test-projects.js";
import { registerTicketPages } from "./pages/tickets.js";
import { registerWaitingListPages } from "./pages/waiting-list.js";
import { sendPage } from "./ui/render.js";

/** Headers on every dashboard response: the pages' security headers, and no caching by default. */
function securityHeaders(reply: FastifyReply): void {
  setPageSecurityHeaders(reply, {
    contentSecurityPolicy: dashboardPolicy(),
    referrerPolicy: "same-origin",
    isolated: true,
  });
  if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
}

// The path of a Referer on this site (by BASE_URL or the request's own host); undefined otherwise.
function sameSitePath(
  referer: string | undefined,
  baseUrl: string,
  host: string | undefined,
): string | undefined {
  if (!referer || !URL.canParse(referer)) return undefined;
  const url = new URL(referer);
  const sameSite = url.origin === new URL(baseUrl).origin || (host !== undefined && url.host === host);
  return sameSite ? `${url.pathname}${url.search}` : undefined;
}

// Throws BAD_USER_INPUT naming the first field (URL segment, query or form field) holding a control
// character; form fields may hold newlines and tabs (descriptions are multi-line).
// `next` is exempt: it is never stored or shown, and safeReturnPath turns anything but a clean path
// of this site into "/", so a bad return path never stops a login.
function refuseControlCharacters(values: unknown, multiline: boolean): void {
  if (typeof values !== "object" || values === null) return;
  for (const [name, value] of Object.entries(values)) {
    if (name === "next") continue;
    const texts: unknown[] = Array.isArray(value) ? value : [value];
    const bad = (text: unknown) =>
      typeof text === "string" && (hasControlCharacters(text, multiline) || hasControlCharacters(name));
    if (texts.some(bad)) throw badInput([{ field: [name], message: "must not contain control characters" }]);
  }
}

/**
 * The organizer and developer dashboard: server-rendered pages, cookie sessions, CSRF-protected
 * forms. Encapsulated so its cookie and form parsers do not reach the API's routes.
 */
export async function registerDashboard(app: FastifyInstance): Promise<void> {
  await app.register(async (dashboard) => {
    const { services } = dashboard;
    const signingKey = await loadServerSecret(services.database.db, "dashboard-cookie-signing");
    const secureCookies = services.config.baseUrl.startsWith("https://");
    const sendsEmail = Boolean(services.config.smtpUrl);
    const mailLinksInLog = services.config.mailLinksInLog;

    await dashboard.register(cookie, { secret: signingKey });
    await dashboard.register(formbody);
    dashboard.decorateRequest("dashboard", undefined as unknown as FastifyRequest["dashboard"]);

    dashboard.addHook("onRequest", async (request, reply) => {
      request.dashboard = { session: undefined, signingKey, secureCookies, sendsEmail, mailLinksInLog };
      const value = request.cookies[sessionCookie];
      if (!value) return;
      const session = await services.sessions.resume(value, sessionClient(request));
      if (session) request.dashboard.session = session;
      else clearSessionCookie(request, reply);
    });

    // Every page costs the server work: each request counts against its session and its address.
    dashboard.addHook("onRequest", async (request, reply) => {
      await admitDashboardRequest(services.throttle, request, reply);
    });

    // NUL and other control characters are refused at the door, for every page the same way:
    // PostgreSQL cannot store NUL (it was an internal error) while SQLite silently kept it.
    dashboard.addHook("preValidation", async (request) => {
      refuseControlCharacters(request.params, false);
      refuseControlCharacters(request.query, false);
      refuseControlCharacters(request.body, true);
    });

    dashboard.addHook("preHandler", async (request) => {
      if (request.method === "GET" || request.method === "HEAD") return;
      verifyCsrf(request, request.routeOptions.config.csrf ?? "session");
    });

    dashboard.addHook("onSend", async (_request, reply, payload) => {
      securityHeaders(reply);
      return payload;
    });

    dashboard.setErrorHandler(async (error: FastifyError | AppError | Error, request, reply) => {
      // A request that failed before the onRequest hook (e.g. an unparsable body) has no state yet.
      request.dashboard ??= { session: undefined, signingKey, secureCookies };
      if (error instanceof LoginRequired) {
        return reply
          .code(303)
          .header("location", `/login?next=${encodeURIComponent(error.returnTo)}`)
          .send();
      }
      const ctx = pageContext(request, reply);
      if (error instanceof CsrfError) {
        return sendPage(
          reply,
          ForbiddenPage({
            ctx,
            message:
              "This form has expired or did not come from this site. Go back, reload the page and try again.",
          }),
          403,
        );
      }
      if (error instanceof AppError) {
        const status = httpStatusFor(error.code);
        if (error.code === ErrorCode.NOT_FOUND) return sendPage(reply, NotFoundPage({ ctx }), status);
        if (error.code === ErrorCode.SERVICE_UNAVAILABLE) {
          reply.header("retry-after", String(databaseRetryAfterSeconds));
          const message = "The database is unavailable for a moment. Try again in a few seconds.";
          const page = ServerErrorPage({ ctx, status, message, requestId: String(request.id) });
          return sendPage(reply, page, status);
        }
        if (error.code === ErrorCode.FORBIDDEN)
          return sendPage(reply, ForbiddenPage({ ctx, message: error.message }), status);
        // A refused action without a form of its own (e.g. deleting a ticket type that has
        // registrations) goes back to the page it came from, with the reason on top.
        const back = sameSitePath(request.headers.referer, services.config.baseUrl, request.headers.host);
        if (request.method === "POST" && back && isUserError(error)) {
          return redirectTo(request, reply, back, { kind: "error", text: error.message });
        }
        if (status < 500) {
          return sendPage(
            reply,
            ServerErrorPage({ ctx, status, message: error.message, requestId: String(request.id) }),
            status,
          );
        }
      }
      const status =
        error instanceof AppError
          ? httpStatusFor(error.code)
          : "statusCode" in error && typeof error.statusCode === "number"
            ? error.statusCode
            : 500;
      if (status >= 500) request.log.error({ err: error }, "Dashboard request failed");
      const message =
        status >= 500
          ? "An unexpected error stopped this page. Try again in a moment; if it keeps happening, tell your operator the request id below."
          : "The request could not be read. Go back and try again.";
      return sendPage(
        reply,
        ServerErrorPage({ ctx, status, message, requestId: String(request.id) }),
        status,
      );
    });

    dashboard.setNotFoundHandler(async (request, reply) => {
      if (!request.headers.accept?.includes("text/html")) {
        return reply.code(404).send({ error: "Not found" });
      }
      return sendPage(reply, NotFoundPage({ ctx: pageContext(request, reply) }), 404);
    });

    registerAssetRoutes(dashboard);
    registerAuthPages(dashboard);
    registerSingleSignOnPages(dashboard);
    registerAccountPages(dashboard);
    registerProjectPages(dashboard);
    registerTestProjectPages(dashboard);
    registerSettingsPages(dashboard);
    registerEventLanguagePages(dashboard);
    registerAuditLogPages(dashboard);
    registerMemberPages(dashboard);
    registerInvitationPages(dashboard);
    registerAgendaPages(dashboard);
    registerSpeakerPages(dashboard);
    registerTicketPages(dashboard);
    registerAttendeePages(dashboard);
    registerOrderPages(dashboard);
    registerDiscountCodePages(dashboard);
    registerQuestionPages(dashboard);
    registerWaitingListPages(dashboard);
    registerMessagePages(dashboard);
    registerCheckInPages(dashboard);
    registerDeveloperPages(dashboard);
  });
}
