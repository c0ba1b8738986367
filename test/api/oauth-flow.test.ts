import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as oauth from "oauth4webapi";
import { testEngines } from "../helpers/engines.js";
import { userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import {
  appWithClient,
  authorizationRequest,
  discover,
  insecure,
  install,
} from "../helpers/oauth-install.js";
import { serverPerSuite } from "../helpers/test-server.js";

const projectQuery = `query ($id: ID!) { project(id: $id) { id name sessions(first: 1) { totalCount } } }`;
const attendeesQuery = `query ($id: ID!) { project(id: $id) { attendees(first: 1) { totalCount } } }`;

/** The error code oauth4webapi read from the server's RFC 6749 answer. */
async function oauthError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error;
    throw error;
  }
  assert.fail("expected an OAuth error");
}

for (const engine of testEngines()) {
  describe(`OAuth 2.0 installs driven by oauth4webapi (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("publishes RFC 8414 metadata that oauth4webapi accepts", async () => {
      const as = await discover(server.url);
      assert.equal(as.issuer, server.url);
      assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
      assert.equal(as.token_endpoint, `${server.url}/oauth/token`);
      assert.equal(as.revocation_endpoint, `${server.url}/oauth/revoke`);
    });

    test("installs, reads its one project with the granted scopes, and nothing else", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      assert.equal(tokens.token_type, "bearer");
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, "agenda:read attendees:read");
      assert.equal(tokens.project_id, setup.organizer.project.id);
      assert.match(tokens.access_token, /^evo_/);
      assert.match(tokens.refresh_token ?? "", /^evr_/);
      const read = await gql(server.url, projectQuery, {
        token: tokens.access_token,
        variables: { id: setup.organizer.project.id },
      });
      assert.equal(read.status, 200);
      assert.equal(read.body.data.project.id, setup.organizer.project.id);
      assert.equal(
        (
          await gql(server.url, attendeesQuery, {
            token: tokens.access_token,
            variables: { id: setup.organizer.project.id },
          })
        ).body.data.project.attendees.totalCount,
        0,
      );
      // The app's home project is not the grant's: unseen, exactly like a missing project.
      const home = await gql(server.url, projectQuery, {
        token: tokens.access_token,
        variables: { id: setup.app.projectId },
      });
      assert.equal(home.body.data.project, null);
      assert.equal(home.body.errors[0].extensions.code, "NOT_FOUND");
      const viewer = await gql(
        server.url,
        "{ viewer { projects(first: 5) { totalCount edges { node { id } } } } }",
        {
          token: tokens.access_token,
        },
      );
      assert.deepEqual(viewer.body.data.viewer.projects, {
        totalCount: 1,
        edges: [{ node: { id: setup.organizer.project.id } }],
      });
      // The app's webhook deliveries span every project it reaches: not for a one-project token.
      const hooks = await gql(server.url, "{ viewer { webhook { url } } }", { token: tokens.access_token });
      assert.equal(hooks.body.errors[0].extensions.code, "FORBIDDEN");
    });

    test("an organizer who is logged out logs in and comes back to the same authorization request", async () => {
      const setup = await appWithClient(server.services);
      const { params } = await authorizationRequest(setup.app.id, { scope: "agenda:read" });
      const anonymous = new HttpClient(server.url);
      const page = await anonymous.get(`/oauth/authorize?${new URLSearchParams(params)}`);
      assert.equal(page.status, 200);
      const next = /href="\/login\?next=([^"]+)"/.exec(page.body)?.[1];
      assert.ok(next, "the page offers to log in");
      const back = decodeURIComponent(next.replace(/&amp;/g, "&"));
      const browser = await logIn(server.url, setup.organizer.user.email, {
        next: `?next=${encodeURIComponent(back)}`,
      });
      const consentPage = await browser.get(back);
      assert.equal(consentPage.status, 200);
      assert.equal(browser.formValue("code_challenge"), params.code_challenge);
      assert.equal(browser.formValue("state"), params.state);
      assert.equal(browser.formValue("scope"), "agenda:read");
    });

    test("a subset of the app's permissions may be asked for, and the token holds only that", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup, { scope: "agenda:read" });
      assert.equal(tokens.scope, "agenda:read");
      const refused = await gql(server.url, attendeesQuery, {
        token: tokens.access_token,
        variables: { id: setup.organizer.project.id },
      });
      assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(refused.body.errors[0].extensions.requiredPermission, "attendees:read");
    });

    test("refreshes with a rotated refresh token; reusing the old one revokes the whole grant", async () => {
      const setup = await appWithClient(server.services);
      const { as, tokens } = await install(server.url, setup);
      const auth = oauth.ClientSecretPost(setup.secret);
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        setup.client,
        await oauth.refreshTokenGrantRequest(as, setup.client, auth, tokens.refresh_token ?? "", insecure),
      );
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      const id = setup.organizer.project.id;
      assert.equal(
        (await gql(server.url, projectQuery, { token: refreshed.access_token, variables: { id } })).status,
        200,
      );
      // The old refresh token again: a copy exists somewhere, so every token of the grant ends.
      const reused = oauth.refreshTokenGrantRequest(
        as,
        setup.client,
        auth,
        tokens.refresh_token ?? "",
        insecure,
      );
      assert.equal(
        await oauthError(reused.then((r) => oauth.processRefreshTokenResponse(as, setup.client, r))),
        "invalid_grant",
      );
      for (const token of [tokens.access_token, refreshed.access_token]) {
        const refused = await gql(server.url, projectQuery, { token, variables: { id } });
        assert.equal(refused.status, 401);
        assert.match(refused.headers.get("www-authenticate") ?? "", /invalid_token/);
      }
      const newest = oauth.refreshTokenGrantRequest(
        as,
        setup.client,
        auth,
        refreshed.refresh_token ?? "",
        insecure,
      );
      assert.equal(
        await oauthError(newest.then((r) => oauth.processRefreshTokenResponse(as, setup.client, r))),
        "invalid_grant",
      );
      const grants = await server.services.oauth.grantsOfProject(setup.organizer.actor, id);
      assert.equal(grants[0]?.status, "revoked");
      assert.equal(grants[0]?.revokedReason, "refresh_token_reused");
    });

    test("revocation (RFC 7009) of the refresh token ends the access token at once", async () => {
      const setup = await appWithClient(server.services);
      const { as, tokens } = await install(server.url, setup);
      const auth = oauth.ClientSecretBasic(setup.secret);
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, setup.client, auth, tokens.refresh_token ?? "", insecure),
      );
      const id = setup.organizer.project.id;
      assert.equal(
        (await gql(server.url, projectQuery, { token: tokens.access_token, variables: { id } })).status,
        401,
      );
      // An unknown token is a success too (RFC 7009 §2.2).
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, setup.client, auth, "evo_unknown", insecure),
      );
    });

    test("revoking the link or narrowing the app ends or narrows its tokens at once", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      const id = setup.organizer.project.id;
      const token = tokens.access_token;
      assert.equal((await gql(server.url, attendeesQuery, { token, variables: { id } })).status, 200);
      await server.services.apps.updateApp(userActor(setup.developerId), {
        id: setup.app.id,
        permissions: ["agenda:read"],
      });
      const narrowed = await gql(server.url, attendeesQuery, { token, variables: { id } });
      assert.equal(narrowed.body.errors[0].extensions.code, "FORBIDDEN");
      await server.services.apps.revokeLink(setup.organizer.actor, { appId: setup.app.id, projectId: id });
      assert.equal((await gql(server.url, projectQuery, { token, variables: { id } })).status, 401);
      const grants = await server.services.oauth.grantsOfApp(userActor(setup.developerId), setup.app.id);
      assert.equal(grants[0]?.status, "link_revoked");
    });

    test("the grant's last use is shown to the organizer and the developer", async () => {
      const setup = await appWithClient(server.services);
      const { tokens } = await install(server.url, setup);
      const id = setup.organizer.project.id;
      let grants = await server.services.oauth.grantsOfProject(setup.organizer.actor, id);
      assert.equal(grants[0]?.lastUsedAt, null);
      await gql(server.url, projectQuery, { token: tokens.access_token, variables: { id } });
      await server.services.oauth.flushUse();
      grants = await server.services.oauth.grantsOfProject(setup.organizer.actor, id);
      assert.ok(grants[0]?.lastUsedAt);
      const mine = await server.services.oauth.grantsOfApp(userActor(setup.developerId), setup.app.id);
      assert.equal(mine[0]?.lastUsedAt, grants[0]?.lastUsedAt);
      // Another organizer sees nothing of it.
      await assert.rejects(server.services.oauth.grantsOfApp(setup.organizer.actor, setup.app.id), {
        code: "NOT_FOUND",
      });
    });
  });
}
