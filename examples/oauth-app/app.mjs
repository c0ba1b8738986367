// A complete Eventgraph app that installs through OAuth 2.0 (authorization code with PKCE), calls
// the API with the access token, refreshes it before it expires (each refresh token is used once:
// the new one replaces it), and notices when an organizer revoked it. It keeps its installs in
// memory; a real app keeps them in its database, encrypted. See docs/guides/15-oauth.md.
//
//   EVENTGRAPH_URL=https://events.example.com CLIENT_ID=... CLIENT_SECRET=evs_... \
//   REDIRECT_URI=http://127.0.0.1:8090/callback PORT=8090 node app.mjs
import { createServer } from "node:http";
import * as oauth from "oauth4webapi";

const env = process.env;
const issuer = new URL(env.EVENTGRAPH_URL ?? "http://localhost:4000");
const client = { client_id: env.CLIENT_ID ?? "" };
const clientAuth = oauth.ClientSecretBasic(env.CLIENT_SECRET ?? "");
const redirectUri = env.REDIRECT_URI ?? "http://127.0.0.1:8090/callback";
// Refresh this long before the access token expires (an hour after it was issued).
const refreshMarginMs = Number(env.REFRESH_MARGIN_SECONDS ?? 300) * 1000;
// Plain http only for a server on this machine (oauth4webapi refuses it otherwise).
const options = issuer.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {};

const as = await oauth.processDiscoveryResponse(
  issuer,
  await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...options }),
);

/** Started authorizations by state: the PKCE verifier to finish each. */
const pending = new Map();
/** Installs by project id: { accessToken, refreshToken, expiresAt, revoked }. */
const installs = new Map();

function keep(projectId, tokens) {
  installs.set(projectId, {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: Date.now() + tokens.expires_in * 1000,
    revoked: false,
  });
}

/** The install's access token, refreshed first when it is about to expire; null once revoked. */
async function accessTokenOf(projectId) {
  const install = installs.get(projectId);
  if (!install || install.revoked) return null;
  if (install.expiresAt - Date.now() > refreshMarginMs) return install.accessToken;
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      install.refreshToken,
      options,
    );
    keep(projectId, await oauth.processRefreshTokenResponse(as, client, response));
    return installs.get(projectId).accessToken;
  } catch (error) {
    // invalid_grant: the organizer revoked the app, or the grant ended. Never retry it.
    if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") {
      install.revoked = true;
      return null;
    }
    throw error;
  }
}

/** A GraphQL call for one install; null when its access ended. */
async function graphql(projectId, query, variables) {
  const token = await accessTokenOf(projectId);
  if (!token) return null;
  const response = await fetch(new URL("/api/graphql", issuer), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  // 401: revoked between our refresh and this call.
  if (response.status === 401) {
    installs.get(projectId).revoked = true;
    return null;
  }
  return response.json();
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", redirectUri);
  try {
    if (url.pathname === "/install") {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      pending.set(state, verifier);
      const authorize = new URL(as.authorization_endpoint);
      authorize.search = new URLSearchParams({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: redirectUri,
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        scope: "agenda:read",
      }).toString();
      return send(res, 302, {}, { location: authorize.href });
    }
    if (url.pathname === new URL(redirectUri).pathname) {
      const state = url.searchParams.get("state") ?? "";
      const verifier = pending.get(state);
      pending.delete(state);
      if (!verifier) return send(res, 400, { error: "unknown or reused state" });
      const params = oauth.validateAuthResponse(as, client, url, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirectUri,
        verifier,
        options,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      keep(tokens.project_id, tokens);
      return send(res, 200, { installed: tokens.project_id, scope: tokens.scope });
    }
    const project = /^\/projects\/([A-Za-z0-9]{4})$/.exec(url.pathname);
    if (project) {
      const answer = await graphql(
        project[1],
        "query ($id: ID!) { project(id: $id) { name sessions(first: 5) { totalCount } } }",
        { id: project[1] },
      );
      if (!answer) return send(res, 410, { error: "access revoked: install the app again" });
      return send(res, 200, answer.data.project);
    }
    return send(res, 404, { error: "not found" });
  } catch (error) {
    return send(res, 502, { error: error instanceof Error ? error.message : String(error) });
  }
});

server.listen(Number(env.PORT ?? 8090), "127.0.0.1", () => {
  console.log(JSON.stringify({ msg: "listening", port: server.address().port }));
});
