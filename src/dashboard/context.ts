import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type Actor, bindOrigin } from "../modules/access/actor.js";
import type { AuthSession, SessionClient } from "../modules/accounts/sessions.service.js";
import { randomSecret, sessionIdleMs } from "../modules/accounts/sessions.service.js";
import type { User } from "../modules/accounts/users.service.js";
import type { Flash } from "./ui/components.js";
import { csrfFieldName } from "./ui/forms.js";

/** How a route's POST is protected against cross-site requests. */
export type CsrfMode =
  /** The token bound to the login session (every form behind login). */
  | "session"
  /** Forms used before login (log in, sign up, reset): a signed double-submit cookie. */
  | "public";

declare module "fastify" {
  interface FastifyRequest {
    dashboard: DashboardState;
  }
  interface FastifyContextConfig {
    csrf?: CsrfMode;
  }
}

/** What the dashboard knows about the current request. */
interface DashboardState {
  session: AuthSession | undefined;
  /** Key for the signed pre-login CSRF cookie (set once the plugin has loaded it). */
  signingKey: string;
  /** Whether the server sends email (SMTP_URL); without it see `mailLinksInLog`. */
  sendsEmail?: boolean;
  /** Without SMTP, whether a development server logs the links of unsent emails. */
  mailLinksInLog?: boolean;
  secureCookies: boolean;
  /** Apps waiting for approval in the project of this page (set by loadProjectPage for managers). */
  pendingApprovals?: number;
}

/** What every page needs to draw its frame and forms. */
export interface PageContext {
  user: User | undefined;
  csrf: string;
  flash: Flash | undefined;
  path: string;
  /** Apps linked to this page's project that wait for a manager to approve added permissions. */
  pendingApprovals?: number | undefined;
  /** Whether the server sends email; the verification banner says where the link is otherwise. */
  sendsEmail: boolean;
  /** Without SMTP: whether the link is in the server log (development) or only the operator can help. */
  mailLinksInLog: boolean;
}

export const sessionCookie = "evg_session";
const publicCsrfCookie = "evg_csrf";
const flashCookie = "evg_flash";

/** Raised for a POST without a valid CSRF token; answered with a 403 page. */
export class CsrfError extends Error {
  constructor() {
    super("Invalid or missing CSRF token");
    this.name = "CsrfError";
  }
}

/** Raised by `requireUser` when nobody is logged in; answered with a redirect to the login page. */
export class LoginRequired extends Error {
  constructor(readonly returnTo: string) {
    super("Login required");
    this.name = "LoginRequired";
  }
}

function cookieOptions(request: FastifyRequest) {
  return { path: "/", httpOnly: true, sameSite: "lax" as const, secure: request.dashboard.secureCookies };
}

/** Sets the session cookie after login. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, cookieValue: string): void {
  reply.setCookie(sessionCookie, cookieValue, { ...cookieOptions(request), maxAge: sessionIdleMs / 1000 });
}

/** Removes the session cookie (logout, unknown session). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookie, cookieOptions(request));
}

function hmac(key: string, value: string): string {
  return createHmac("sha256", key).update(`csrf:${value}`).digest("base64url");
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// The pre-login token is an HMAC of a random value kept in a cookie: a cross-site page can make the
// browser send the cookie but can neither read it nor compute the matching token.
function publicCsrfToken(request: FastifyRequest, reply: FastifyReply): string {
  let value = request.cookies[publicCsrfCookie];
  if (!value) {
    value = randomSecret();
    reply.setCookie(publicCsrfCookie, value, cookieOptions(request));
  }
  return hmac(request.dashboard.signingKey, value);
}

/** The CSRF token for forms on this page: the session's, or the pre-login one. */
function csrfTokenFor(request: FastifyRequest, reply: FastifyReply): string {
  return request.dashboard.session?.csrfToken ?? publicCsrfToken(request, reply);
}

/** Throws CsrfError unless the submitted form carries the token the route requires. */
export function verifyCsrf(request: FastifyRequest, mode: CsrfMode): void {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const submitted = typeof body[csrfFieldName] === "string" ? (body[csrfFieldName] as string) : "";
  if (!submitted) throw new CsrfError();
  const session = request.dashboard.session;
  if (session && sameText(submitted, session.csrfToken)) return;
  if (mode === "public") {
    const cookie = request.cookies[publicCsrfCookie];
    if (cookie && sameText(submitted, hmac(request.dashboard.signingKey, cookie))) return;
  }
  throw new CsrfError();
}

/** Queues a message for the next page the browser shows (a signed cookie, so it cannot be forged). */
function setFlash(request: FastifyRequest, reply: FastifyReply, flash: Flash): void {
  reply.setCookie(flashCookie, JSON.stringify(flash), {
    ...cookieOptions(request),
    signed: true,
    maxAge: 120,
  });
}

function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | undefined {
  const raw = request.cookies[flashCookie];
  if (!raw) return undefined;
  reply.clearCookie(flashCookie, cookieOptions(request));
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    const flash = JSON.parse(unsigned.value) as Flash;
    return ["success", "error", "info"].includes(flash.kind) && typeof flash.text === "string"
      ? flash
      : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the page context: current user, CSRF token and the pending flash message. */
export function pageContext(request: FastifyRequest, reply: FastifyReply): PageContext {
  return {
    user: request.dashboard.session?.user,
    csrf: csrfTokenFor(request, reply),
    flash: takeFlash(request, reply),
    path: request.url,
    pendingApprovals: request.dashboard.pendingApprovals,
    sendsEmail: request.dashboard.sendsEmail ?? false,
    mailLinksInLog: request.dashboard.mailLinksInLog ?? false,
  };
}

/** The logged-in user, or a LoginRequired that sends the browser to the login page and back. */
export function requireUser(request: FastifyRequest): User {
  const user = request.dashboard.session?.user;
  if (!user) throw new LoginRequired(request.method === "GET" ? request.url : "/");
  return user;
}

/** The domain actor for the logged-in user. */
export function actorOf(request: FastifyRequest): Actor {
  return bindOrigin({ kind: "user", userId: requireUser(request).id }, { via: "dashboard", ip: request.ip });
}

/** Redirects after a POST (303: the browser follows with GET), optionally with a flash message. */
export function redirectTo(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  flash?: Flash,
): FastifyReply {
  if (flash) setFlash(request, reply, flash);
  return reply.code(303).header("location", location).send();
}

// A path on this site in printable ASCII without spaces or backslashes. Browsers drop tabs and line
// breaks inside URLs ("/\t/evil.example" becomes "//evil.example") and read "\\" as "/", and a
// Location header cannot carry non-ASCII text at all (it would answer 500).
const returnPathPattern = /^\/(?!\/)[\x21-\x5b\x5d-\x7e]*$/;

/**
 * The one reader of every `next` (return-to) parameter: a same-origin path, or `/` for anything else
 * (absolute URLs, `//host`, hidden whitespace, backslashes, non-ASCII).
 */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2000 || !returnPathPattern.test(value)) return "/";
  // Belt and braces: whatever a URL parser makes of it must stay on this origin.
  const origin = "http://same-origin.invalid";
  return new URL(value, origin).origin === origin ? value : "/";
}

/** The browser and address a session is used from, recorded for the account page's session list. */
export function sessionClient(request: FastifyRequest): SessionClient {
  return { ip: request.ip, userAgent: request.headers["user-agent"] };
}
