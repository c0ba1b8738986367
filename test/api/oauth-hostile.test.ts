import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as oauth from "oauth4webapi";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import { logIn } from "../helpers/log-in.js";
import {
  appWithClient,
  authorizationRequest,
  callback,
  consent,
  discover,
  install,
} from "../helpers/oauth-install.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const projectQuery = `query ($id: ID!) { project(id: $id) { id } }`;

/** POSTs a form to the token endpoint as any client library would, and answers status and JSON. */
async function tokenRequest(
  baseUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

for (const engine of testEngines()) {
  describe(`OAuth 2.0 against hostile callers (${engine.name})`, () => {
    let server: TestServer;
    let other: TestServer;
    let sql: PlainSql;
    before(async () => {
      const databaseUrl = engine.newDatabaseUrl();
      server = await startTestServer(engine, { DATABASE_URL: databaseUrl });
      // A second server process on the same database: what one process revokes, the other must refuse.
      other = await startTestServer(engine, { DATABASE_URL: databaseUrl });
      sql = await plainSql(databaseUrl);
    });
    after(async () => {
      await sql?.close();
      await other?.close();
      await server?.close();
    });

    /** Consent only: a code at the callback, not yet exchanged. */
    async function codeFor(setup: Awaited<ReturnType<typeof appWithClient>>) {
      const as = await discover(server.url);
      const browser = await logIn(server.url, setup.organizer.user.email);
      const { verifier, params } = await authorizationRequest(setup.app.id);
      const redirected = await consent(browser, as, params, setup.organizer.project.id);
      return { code: redirected.searchParams.get("code") ?? "", verifier, redirected };
    }

    const exchange = (setup: Awaited<ReturnType<typeof appWithClient>>, form: Record<string, string>) =>
      tokenRequest(server.url, {
        grant_type: "authorization_code",
        redirect_uri: callback,
        client_id: setup.app.id,
        client_secret: setup.secret,
        ...form,
      });

    test("an unregistered redirect URI is refused on the page, never redirected to", async () => {
      const setup = await appWithClient(server.services);
      const browser = await logIn(server.url, setup.organizer.user.email);
      const { params } = await authorizationRequest(setup.app.id, {
        redirect_uri: "https://attacker.example.test/oauth/callback",
      });
      const page = await browser.get(`/oauth/authorize?${new URLSearchParams(params)}`);
      assert.equal(page.status, 400);
      assert.equal(page.headers.get("location"), null);
      // A prefix or a longer path of a registered URI is not it either (exact match).
      const { params: longer } = await authorizationRequest(setup.app.id, { redirect_uri: `${callback}/x` });
      assert.equal((await browser.get(`/oauth/authorize?${new URLSearchParams(longer)}`)).status, 400);
    });

    test("an authorization request without S256 PKCE is sent back as invalid_request", async () => {
      const setup = await appWithClient(server.services);
      const browser = await logIn(server.url, setup.organizer.user.email);
      const changes: Record<string, string>[] = [{ code_challenge_method: "plain" }, { code_challenge: "" }];
      for (const change of changes) {
        const { params, state } = await authorizationRequest(setup.app.id, change);
        const answer = await browser.get(`/oauth/authorize?${new URLSearchParams(params)}`);
        assert.equal(answer.status, 303);
        const back = new URL(answer.headers.get("location") ?? "");
        assert.equal(back.origin + back.pathname, callback);
        assert.equal(back.searchParams.get("error"), "invalid_request");
        assert.equal(back.searchParams.get("state"), state);
      }
      const { params } = await authorizationRequest(setup.app.id, { scope: "attendees:write" });
      const answer = await browser.get(`/oauth/authorize?${new URLSearchParams(params)}`);
      assert.equal(new URL(answer.headers.get("location") ?? "").searchParams.get("error"), "invalid_scope");
    });

    test("a code without the right PKCE verifier, or for another redirect URI, is refused", async () => {
      const setup = await appWithClient(server.services);
      const { code, verifier } = await codeFor(setup);
      const wrong = await exchange(setup, { code, code_verifier: oauth.generateRandomCodeVerifier() });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "invalid_grant");
      assert.equal(wrong.headers.get("cache-control"), "no-store");
      assert.equal((await exchange(setup, { code })).body.error, "invalid_grant");
      const elsewhere = await exchange(setup, {
        code,
        code_verifier: verifier,
        redirect_uri: "https://app.example.test/other",
      });
      assert.equal(elsewhere.body.error, "invalid_grant");
    });

    test("a code used with another app's credentials is refused; a wrong secret is invalid_client", async () => {
      const setup = await appWithClient(server.services);
      const thief = await appWithClient(server.services);
      const { code, verifier } = await codeFor(setup);
      const stolen = await tokenRequest(server.url, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: callback,
        client_id: thief.app.id,
        client_secret: thief.secret,
      });
      assert.equal(stolen.body.error, "invalid_grant");
      const basic = `Basic ${Buffer.from(`${setup.app.id}:${thief.secret}`).toString("base64")}`;
      const badSecret = await tokenRequest(
        server.url,
        { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: callback },
        { authorization: basic },
      );
      assert.equal(badSecret.status, 401);
      assert.equal(badSecret.body.error, "invalid_client");
      assert.match(badSecret.headers.get("www-authenticate") ?? "", /^Basic/);
      // The rightful app still gets its tokens: nothing above spent the code.
      assert.equal((await exchange(setup, { code, code_verifier: verifier })).status, 200);
    });

    test("a code used twice is refused, and the tokens of its first use are revoked", async () => {
      const setup = await appWithClient(server.services);
      const { code, verifier } = await codeFor(setup);
      const first = await exchange(setup, { code, code_verifier: verifier });
      assert.equal(first.status, 200);
      const id = setup.organizer.project.id;
      const token = first.body.access_token;
      assert.equal((await gql(server.url, projectQuery, { token, variables: { id } })).status, 200);
      const second = await exchange(setup, { code, code_verifier: verifier });
      assert.equal(second.body.error, "invalid_grant");
      assert.equal((await gql(server.url, projectQuery, { token, variables: { id } })).status, 401);
    });

    test("an expired code is refused", async () => {
      const setup = await appWithClient(server.services);
      const { code, verifier } = await codeFor(setup);
      await sql.run(
        "update oauth_codes set expires_at = ? where app_id = ?",
        "2020-01-01T00:00:00.000Z",
        setup.app.id,
      );
      assert.equal((await exchange(setup, { code, code_verifier: verifier })).body.error, "invalid_grant");
    });

    test("an access token past its hour is refused, and the refresh token still renews it", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      const id = setup.organizer.project.id;
      await sql.run(
        "update oauth_tokens set expires_at = ? where kind = 'access' and grant_id in (select id from oauth_grants where app_id = ?)",
        new Date(Date.now() - 1000).toISOString(),
        setup.app.id,
      );
      // The other process has never seen the token: it reads the expiry from the database.
      const expired = await gql(other.url, projectQuery, { token: tokens.access_token, variables: { id } });
      assert.equal(expired.status, 401);
      const renewed = await tokenRequest(server.url, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token ?? "",
        client_id: setup.app.id,
        client_secret: setup.secret,
      });
      assert.equal(renewed.status, 200);
      const read = await gql(other.url, projectQuery, {
        token: renewed.body.access_token,
        variables: { id },
      });
      assert.equal(read.status, 200);
    });

    test("a token used after its link was revoked by another process is refused", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      const id = setup.organizer.project.id;
      const token = tokens.access_token;
      // The other process reads the token now and remembers it.
      assert.equal((await gql(other.url, projectQuery, { token, variables: { id } })).status, 200);
      assert.equal((await gql(other.url, projectQuery, { token, variables: { id } })).status, 200);
      await server.services.apps.revokeLink(setup.organizer.actor, { appId: setup.app.id, projectId: id });
      assert.equal((await gql(other.url, projectQuery, { token, variables: { id } })).status, 401);
    });

    test("a grant revoked by plain SQL ends its remembered token on every process", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      const id = setup.organizer.project.id;
      const token = tokens.access_token;
      assert.equal((await gql(other.url, projectQuery, { token, variables: { id } })).status, 200);
      await sql.run(
        "update oauth_grants set revoked_at = ? where app_id = ?",
        new Date().toISOString(),
        setup.app.id,
      );
      // The database moved the project's version; the change feed or data_version tells the process.
      let status = 200;
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await gql(other.url, projectQuery, { token, variables: { id } })).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(status, 401);
    });

    test("garbage at the token endpoint answers RFC 6749 errors, and a flood is throttled", async () => {
      const form = { grant_type: "authorization_code", client_id: "x", client_secret: "y" };
      assert.equal((await tokenRequest(server.url, form)).body.error, "invalid_client");
      const json = await fetch(`${server.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(form),
      });
      assert.equal((await json.json()).error, "invalid_request");
      const repeated = await fetch(`${server.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&grant_type=authorization_code",
      });
      assert.equal((await repeated.json()).error, "invalid_request");
      const answers = await Promise.all(
        Array.from({ length: 320 }, () =>
          tokenRequest(server.url, { ...form, client_id: `c${Math.random()}` }),
        ),
      );
      const throttled = answers.filter((a) => a.status === 429);
      assert.ok(throttled.length >= 15, `${throttled.length} throttled`);
      assert.equal(throttled[0]?.body.error, "slow_down");
    });
  });
}
