import type { Permission } from "../access/permissions.js";
import { isPermission } from "../access/permissions.js";
import type { ConnectInfo } from "../apps/consent.js";
import type { OAuthClient } from "./oauth.clients.js";
import { isS256Challenge } from "./pkce.js";

/** A checked authorization request (RFC 6749 §4.1.1 with RFC 7636's challenge). */
export interface AuthorizationRequest {
  appId: string;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  /** The requested subset of the app's permissions (all of them when `scope` is absent). */
  scopes: Permission[];
}

/** What to do with an authorization request. */
export type AuthorizationCheck =
  /** Not redirected: the client or its redirect URI is unknown, so the page says why (RFC 6749 §4.1.2.1). */
  | { kind: "refused"; message: string }
  /** An error the app is told at its redirect URI. */
  | { kind: "redirect"; url: string }
  | { kind: "valid"; request: AuthorizationRequest; info: ConnectInfo };

// The app's opaque state comes back as it was sent: printable ASCII, bounded (as on the connect page).
const statePattern = /^[\x21-\x7e]{1,500}$/;

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207) added; its own query is kept. */
export function redirectWith(
  redirectUri: string,
  issuer: string,
  answer: Record<string, string | undefined>,
) {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...answer, iss: issuer }))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Checks the parameters of an authorization request in the order RFC 6749 §4.1.2.1 asks: the client
 * and its redirect URI first (exact match, RFC 9700 §2.1: an error is never sent to an unregistered
 * address), then everything else, refused at the app's redirect URI.
 */
export function checkAuthorizationRequest(
  params: Record<string, unknown>,
  registered: { client: OAuthClient; info: ConnectInfo } | undefined,
  issuer: string,
): AuthorizationCheck {
  if (!registered) return { kind: "refused", message: "This app is unknown or does not use OAuth." };
  const redirectUri = params.redirect_uri;
  if (typeof redirectUri !== "string" || !registered.client.redirectUris.includes(redirectUri)) {
    return { kind: "refused", message: "The redirect_uri is not one this app registered." };
  }
  const state =
    typeof params.state === "string" && statePattern.test(params.state) ? params.state : undefined;
  const fail = (error: string, description: string) => ({
    kind: "redirect" as const,
    url: redirectWith(redirectUri, issuer, { error, error_description: description, state }),
  });
  if (params.state !== undefined && params.state !== "" && state === undefined) {
    return fail("invalid_request", "state must be at most 500 printable ASCII characters");
  }
  if (params.response_type !== "code") {
    return fail(
      "unsupported_response_type",
      "Only the authorization code flow (response_type=code) is offered",
    );
  }
  if (params.code_challenge_method !== "S256" || typeof params.code_challenge !== "string") {
    return fail("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256");
  }
  if (!isS256Challenge(params.code_challenge)) {
    return fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier");
  }
  const offered = registered.info.permissions.map((p) => p.name);
  let scopes: Permission[] = offered;
  if (typeof params.scope === "string" && params.scope.trim() !== "") {
    const names = params.scope.trim().split(/ +/);
    if (names.length > 50 || !names.every((n) => isPermission(n) && offered.includes(n))) {
      return fail("invalid_scope", "scope may name only permissions this app asks for");
    }
    scopes = offered.filter((p) => names.includes(p));
  } else if (params.scope !== undefined && typeof params.scope !== "string") {
    return fail("invalid_scope", "scope must be a space-separated list");
  }
  return {
    kind: "valid",
    info: registered.info,
    request: {
      appId: registered.client.clientId,
      redirectUri,
      state,
      codeChallenge: params.code_challenge,
      scopes,
    },
  };
}
