import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { hashToken } from "../../src/modules/apps/tokens.js";
import { onlyJson, runCliBinary, runCliInProcess } from "../helpers/cli.js";
import { cliAppsSuite, readAttendees } from "../helpers/cli-apps.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";

// In-process: the bin's own wiring is proved in cli.test.ts and by the token test in apps.test.ts.
const eventgraph = runCliInProcess;

/** How often `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

// What `eventgraph apps` does: create, update, link, revoke and rotate, each proved through the API.

for (const engine of testEngines()) {
  describe(`eventgraph apps (${engine.name})`, () => {
    const { server, env, developerProject, organizerProject, createAppWithCli } = cliAppsSuite(engine);

    test("apps create prints {id, name, permissions, token, connectLink}, and the token reads its project through the API", async () => {
      const { project } = await developerProject();
      const { code, stdout, stderr } = await runCliBinary(
        [
          "apps",
          "create",
          "--project",
          project.id,
          "--name",
          "Badge printer",
          "--description",
          "Prints badges at the door",
          "--permissions",
          " checkins:write, attendees:read,attendees:read ",
          "--json",
        ],
        env,
      );
      assert.equal(code, 0, stderr);
      assert.equal(stderr, "");
      const app = onlyJson(stdout);
      assert.deepEqual(Object.keys(app).sort(), ["connectLink", "id", "name", "permissions", "token"]);
      assert.equal(app.name, "Badge printer");
      // Deduplicated, in catalogue order.
      assert.deepEqual(app.permissions, ["attendees:read", "checkins:write"]);
      assert.match(String(app.token), /^evg_[A-Za-z0-9]{32,}$/);
      assert.equal(app.connectLink, `${server.url}/connect/${app.id}`);

      const row = await server.database.db
        .selectFrom("apps")
        .selectAll()
        .where("id", "=", String(app.id))
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.project_id, row.description, row.token_hash, row.created_by],
        [project.id, "Prints badges at the door", hashToken(String(app.token)), null],
      );

      const { body } = await gql(
        server.url,
        `query ($id: ID!) { viewer { id name permissions } project(id: $id) { id attendees { totalCount } } }`,
        { token: String(app.token), variables: { id: project.id } },
      );
      assert.equal(body.errors, undefined);
      assert.deepEqual(body.data.viewer.permissions, ["ATTENDEES_READ", "CHECKINS_WRITE"]);
      assert.equal(body.data.viewer.name, "Badge printer");
      assert.deepEqual(body.data.project, { id: project.id, attendees: { totalCount: 0 } });
    });

    test("apps update --api-version pins the version the app's next request is answered in, and refuses an unknown one", async () => {
      const { project } = await developerProject();
      const { app, token } = await createApp(server.services, { projectId: project.id });
      const refused = await runCliInProcess(
        ["apps", "update", "--app", app.id, "--api-version", "2020-01-01"],
        env,
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /must be one of 2026-09-01, 2026-12-01/);
      const pinned = await runCliInProcess(
        ["apps", "update", "--app", app.id, "--api-version", "2026-09-01", "--json"],
        env,
      );
      assert.equal(pinned.code, 0, pinned.stderr);
      assert.equal(onlyJson(pinned.stdout).apiVersion, "2026-09-01");
      const answer = await gql(server.url, "{ __typename }", { token });
      assert.equal(answer.headers.get("eventgraph-version"), "2026-09-01");
    });

    test("apps create without --json prints the token exactly once with a shown-once warning", async () => {
      const { project } = await developerProject();
      const { code, stdout, stderr } = await eventgraph(
        ["apps", "create", "--project", project.id, "--name", "Kiosk", "--permissions", "agenda:read"],
        env,
      );
      assert.equal(code, 0, stderr);
      assert.equal(stderr, "");
      const token = /Token: +(evg_\S+)/.exec(stdout)?.[1];
      assert.ok(token, stdout);
      assert.equal(occurrences(stdout, token), 1);
      assert.match(stdout, /^Created app "Kiosk" in project /);
      assert.match(stdout, /shown only this once/);
      const [app] = await server.services.apps.listForProject(systemActor, project.id);
      assert.ok(app);
      assert.ok(stdout.includes(`App id:       ${app.id}\n`));
      assert.ok(stdout.includes(`Connect link: ${server.url}/connect/${app.id}\n`));
      assert.equal(app.tokenLast4, token.slice(-4));
      // The server that served nothing about this app logged nothing with the token either.
      assert.ok(!server.logs.text.includes(token));
    });

    test('apps create --permissions "" makes an app that reads basic fields only and is FORBIDDEN the rest', async () => {
      const { project } = await developerProject();
      const app = await createAppWithCli(project.id, "");
      assert.deepEqual(app.permissions, []);
      const { body } = await gql(server.url, readAttendees, {
        token: app.token,
        variables: { id: project.id },
      });
      // The basic fields come back; the one field that needs a permission is null with the error.
      assert.deepEqual(body.data.project, { id: project.id, name: project.name, attendees: null });
      assert.equal(body.errors.length, 1);
      assert.deepEqual(body.errors[0].path, ["project", "attendees"]);
      assert.equal(body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(body.errors[0].extensions.requiredPermission, "attendees:read");
    });

    test("apps link lets the token read and write the linked project; apps revoke stops it at the very next request", async () => {
      const { project: home } = await developerProject();
      const app = await createAppWithCli(home.id, "attendees:read,checkins:write");
      const { organizer, project, attendee } = await organizerProject();
      const variables = { id: project.id };

      const before = await gql(server.url, readAttendees, { token: app.token, variables });
      assert.equal(before.body.data.project, null);
      assert.equal(before.body.errors[0].extensions.code, "NOT_FOUND");

      const linked = await eventgraph(
        [
          "apps",
          "link",
          "--app",
          app.id,
          "--project",
          project.id,
          "--as",
          organizer.email.toUpperCase(),
          "--json",
        ],
        env,
      );
      assert.equal(linked.code, 0, linked.stderr);
      const link = onlyJson(linked.stdout);
      assert.deepEqual(Object.keys(link).sort(), [
        "appId",
        "authorizedAt",
        "grantedPermissions",
        "projectId",
      ]);
      assert.deepEqual(
        [link.appId, link.projectId, link.grantedPermissions],
        [app.id, project.id, ["attendees:read", "checkins:write"]],
      );
      const [integration] = await server.services.apps.listIntegrations(systemActor, project.id);
      assert.equal(integration?.app.id, app.id);
      const [linkRow] = await server.services.apps.listLinksForApp(systemActor, app.id);
      assert.equal(linkRow?.authorizedBy?.email, organizer.email);

      const read = await gql(server.url, readAttendees, { token: app.token, variables });
      assert.deepEqual(read.body.data.project, {
        id: project.id,
        name: project.name,
        attendees: { totalCount: 1 },
      });
      const cached = await gql(server.url, readAttendees, { token: app.token, variables });
      assert.equal(cached.body.extensions.cached, true);
      const list = await gql(
        server.url,
        `query ($id: ID!) { project(id: $id) { attendees(first: 1) { edges { node { id email } } } } }`,
        { token: app.token, variables },
      );
      const [edge] = list.body.data.project.attendees.edges;
      assert.equal(edge.node.email, attendee.email);
      const checkIn = await gql(
        server.url,
        "mutation ($input: CheckInAttendeeInput!) { checkInAttendee(input: $input) { attendee { checkedIn } userErrors { message } } }",
        { token: app.token, variables: { input: { attendeeId: edge.node.id } } },
      );
      assert.equal(checkIn.body.errors, undefined, JSON.stringify(checkIn.body));
      assert.deepEqual(checkIn.body.data.checkInAttendee, { attendee: { checkedIn: true }, userErrors: [] });

      const revoked = await eventgraph(
        ["apps", "revoke", "--app", app.id, "--project", project.id, "--json"],
        env,
      );
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.deepEqual(onlyJson(revoked.stdout), {
        appId: app.id,
        projectId: project.id,
        revoked: true,
        wasLinked: true,
      });
      // The very next request, though the same query was just answered from the cache.
      const afterRevoke = await gql(server.url, readAttendees, { token: app.token, variables });
      assert.equal(afterRevoke.body.data.project, null);
      assert.equal(afterRevoke.body.errors[0].extensions.code, "NOT_FOUND");
      assert.deepEqual(afterRevoke.body.errors, before.body.errors);
      // The home project is untouched.
      const homeRead = await gql(server.url, readAttendees, { token: app.token, variables: { id: home.id } });
      assert.equal(homeRead.body.data.project.id, home.id);

      const again = await eventgraph(["apps", "revoke", "--app", app.id, "--project", project.id], env);
      assert.deepEqual(
        [again.code, again.stdout],
        [0, `App ${app.id} was not linked to project ${project.id}; nothing changed\n`],
      );
    });

    test("apps link and revoke print one readable line or block without --json", async () => {
      const { project: home } = await developerProject();
      const app = await createAppWithCli(home.id, "");
      const { organizer, project } = await organizerProject();
      const linked = await eventgraph(
        ["apps", "link", "--app", app.id, "--project", project.id, "--as", organizer.email],
        env,
      );
      assert.equal(linked.code, 0, linked.stderr);
      assert.match(
        linked.stdout,
        new RegExp(
          `^Linked app ${app.id} to project ${project.id} "Test Conference"\n  Granted: +none \\(basic project fields only\\)\n  Authorized by: ${organizer.email.replace(/[.+]/g, "\\$&")} at \\d{4}-`,
        ),
      );
      const revoked = await eventgraph(["apps", "revoke", "--app", app.id, "--project", project.id], env);
      assert.equal(revoked.stdout, `Revoked app ${app.id}'s access to project ${project.id}\n`);
    });

    test("apps rotate-token prints a new token once and the old one fails at the very next request", async () => {
      const { project } = await developerProject();
      const app = await createAppWithCli(project.id, "attendees:read", "Rotating app");
      const variables = { id: project.id };
      assert.equal((await gql(server.url, readAttendees, { token: app.token, variables })).status, 200);

      const { code, stdout, stderr } = await eventgraph(
        ["apps", "rotate-token", "--app", app.id, "--json"],
        env,
      );
      assert.equal(code, 0, stderr);
      const rotated = onlyJson(stdout);
      assert.deepEqual(rotated, {
        id: app.id,
        name: "Rotating app",
        permissions: ["attendees:read"],
        token: rotated.token,
        connectLink: `${server.url}/connect/${app.id}`,
      });
      assert.notEqual(rotated.token, app.token);

      const old = await gql(server.url, readAttendees, { token: app.token, variables });
      assert.equal(old.status, 401);
      assert.equal(old.body.errors[0].extensions.code, "UNAUTHENTICATED");
      const fresh = await gql(server.url, readAttendees, { token: String(rotated.token), variables });
      assert.deepEqual(fresh.body.data.project.attendees, { totalCount: 0 });

      const text = await eventgraph(["apps", "rotate-token", "--app", app.id], env);
      assert.equal(text.code, 0, text.stderr);
      const token = /Token: +(evg_\S+)/.exec(text.stdout)?.[1];
      assert.ok(token);
      assert.equal(occurrences(text.stdout, token), 1);
      assert.match(text.stdout, /^New token for app "Rotating app"\n/);
      assert.match(text.stdout, /shown only this once.*\nThe previous token no longer works\.\n$/);
      assert.equal(
        (await gql(server.url, readAttendees, { token: String(rotated.token), variables })).status,
        401,
      );
    });
  });
}
