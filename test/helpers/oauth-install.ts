import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import type { Services } from "../../src/services.js";
import { createApp, userActor } from "./factories.js";
import type { HttpClient } from "./http-client.js";
import { logIn } from "./log-in.js";
import { createOrganizer } from "./organizer.js";

/** The callback address the test apps register (never contacted: the test reads the redirect). */
export const callback = "https://app.example.test/oauth/callback";

// The test server speaks plain http on 127.0.0.1; everything else oauth4webapi checks as it would.
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The authorization server as oauth4webapi discovers it (RFC 8414 metadata). */
export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  const response = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** A developer's app with an OAuth client (its secret, shown once), and an organizer's project to install it in. */
export async function appWithClient(
  services: Services,
  permissions: ("agenda:read" | "attendees:read")[] = ["agenda:read", "attendees:read"],
) {
  const { app, ownerId } = await createApp(services, { permissions, name: "Badge Printer" });
  const { secret } = await services.oauth.saveClient(userActor(ownerId ?? ""), {
    appId: app.id,
    redirectUris: `${callback}\nhttps://app.example.test/other`,
  });
  assert.ok(secret);
  const organizer = await createOrganizer(services);
  return {
    app,
    developerId: ownerId ?? "",
    secret,
    organizer,
    client: { client_id: app.id } as oauth.Client,
  };
}

/** An authorization request's parameters, with a fresh PKCE verifier and state. */
export async function authorizationRequest(clientId: string, extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params: Record<string, string> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: callback,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  };
  return { verifier, state, params };
}

/**
 * The organizer's browser: opens the authorization endpoint, picks the project and presses Authorize.
 * Answers the redirect the server sent (a URL at the app's callback).
 */
export async function consent(
  browser: HttpClient,
  as: oauth.AuthorizationServer,
  params: Record<string, string>,
  projectId: string,
): Promise<URL> {
  const url = new URL(as.authorization_endpoint ?? "");
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const page = await browser.get(`${url.pathname}${url.search}`);
  assert.equal(page.status, 200, page.body);
  const posted = await browser.post(url.pathname, {
    ...params,
    projectId,
    permissions: browser.formValue("permissions") ?? "",
  });
  assert.equal(posted.status, 303, posted.body);
  return new URL(posted.headers.get("location") ?? "");
}

/** The whole install: consent, then the code exchanged by oauth4webapi. */
export async function install(
  baseUrl: string,
  setup: Awaited<ReturnType<typeof appWithClient>>,
  extra: Record<string, string> = {},
) {
  const as = await discover(baseUrl);
  const browser = await logIn(baseUrl, setup.organizer.user.email);
  const { verifier, state, params } = await authorizationRequest(setup.app.id, extra);
  const redirected = await consent(browser, as, params, setup.organizer.project.id);
  const callbackParams = oauth.validateAuthResponse(as, setup.client, redirected, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    setup.client,
    oauth.ClientSecretBasic(setup.secret),
    callbackParams,
    callback,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, setup.client, response);
  return { as, tokens, browser, code: callbackParams.get("code") ?? "", verifier };
}
