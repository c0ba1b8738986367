/**
 * The dashboard's Content-Security-Policy: no inline script or style anywhere, so the policy can
 * forbid both; nothing may frame the pages. `formTargets` adds origins a form on the page may lead
 * to: browsers apply form-action to the redirect after a POST too, so the consent page names the
 * origin of the app's redirect URL or Authorize could not hand the organizer back to the app.
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
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
