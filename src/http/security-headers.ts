import type { FastifyReply } from "fastify";

/**
 * The security headers of every HTML page Eventgraph serves (dashboard, public event site, API
 * documentation), in one place. Each kind of page has its Content-Security-Policy below; the rest
 * is the same for all: nothing may frame a page, no content sniffing, a referrer policy.
 */

/**
 * The dashboard's policy: no inline script or style anywhere, so the policy can forbid both.
 * `formTargets` adds origins a form on the page may lead to: browsers apply form-action to the
 * redirect after a POST too, so the consent page names the origin of the app's redirect URL or
 * Authorize could not hand the organizer back to the app.
 */
export function dashboardPolicy(formTargets: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["form-action 'self'", ...formTargets].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The public event site's policy: no script at all; images from https (speaker photos) and our own.
 * `formTargets`: origins a form may lead to (a checkout's POST ends on the payment provider's page).
 */
export function eventSitePolicyWith(formTargets: readonly string[]): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data: https:",
    ["form-action 'self'", ...formTargets].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** The event site's policy of every page that leads nowhere else. */
export const eventSitePolicy = eventSitePolicyWith([]);

/**
 * The documentation's policy: scripts only from our own files (no inline script anywhere), nothing
 * from another host. Monaco (the explorer's editor) sets inline styles and loads its workers from
 * our assets.
 */
export const docsPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** What differs between the kinds of page. */
export interface PageSecurity {
  contentSecurityPolicy: string;
  /** Unless the route set its own (a page whose address holds a secret sends `no-referrer`). */
  referrerPolicy: "same-origin" | "strict-origin-when-cross-origin" | "no-referrer";
  /** Cross-Origin-Opener-Policy: same-origin, for pages a signed-in person uses. */
  isolated?: boolean;
}

/**
 * Sets the security headers of an HTML page. A Content-Security-Policy or Referrer-Policy the route
 * already set stands (the consent page widens form-action to the app's origin).
 */
export function setPageSecurityHeaders(reply: FastifyReply, page: PageSecurity): void {
  if (!reply.hasHeader("content-security-policy"))
    reply.header("content-security-policy", page.contentSecurityPolicy);
  reply.header("x-frame-options", "DENY");
  reply.header("x-content-type-options", "nosniff");
  if (!reply.hasHeader("referrer-policy")) reply.header("referrer-policy", page.referrerPolicy);
  if (page.isolated) reply.header("cross-origin-opener-policy", "same-origin");
}

/** The header of a static file (CSS, script, image): its type is the one we send, never sniffed. */
export function setAssetSecurityHeaders(reply: FastifyReply): void {
  reply.header("x-content-type-options", "nosniff");
}
