import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { allPermissions } from "../../src/modules/access/permissions.js";
import { runCliInProcess, stackLine } from "../helpers/cli.js";
import { cliAppsSuite, readAttendees } from "../helpers/cli-apps.js";
import { testEngines } from "../helpers/engines.js";
import { addMember, createProject, createUser, uniqueEmail, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";

// In-process: the bin's own wiring is proved in cli.test.ts and by the token test in apps.test.ts.
const eventgraph = runCliInProcess;

// What `eventgraph apps` refuses, with exit 1 and one line: bad input, unknown ids, people
// without the right, an unverified developer's app, the home project.

for (const engine of testEngines()) {
  describe(`eventgraph apps refusals (${engine.name})`, () => {
    const { server, env, developerProject, organizerProject, createAppWithCli } = cliAppsSuite(engine);

    test("apps create fails with exit 1 and one line for unknown permissions, an unknown project and a blank name", async () => {
      const { project } = await developerProject();
      const cases: [string[], string][] = [
        [
          ["--project", project.id, "--name", "X", "--permissions", "agenda:read,agenda:wirte,admin"],
          `error: permissions: unknown permission "agenda:wirte", "admin"; expected any of ${allPermissions.join(", ")}\n`,
        ],
        [["--project", "Zz9Q", "--name", "X", "--permissions", "agenda:read"], "error: Project not found\n"],
        [["--project", "not-an-id", "--name", "X", "--permissions", ""], "error: Project not found\n"],
        [["--project", project.id, "--name", "  ", "--permissions", ""], "error: name: must not be empty\n"],
      ];
      for (const [args, message] of cases) {
        const { code, stdout, stderr } = await eventgraph(["apps", "create", ...args, "--json"], env);
        assert.deepEqual([code, stdout, stderr], [1, "", message], args.join(" "));
      }
      const apps = await server.services.apps.listForProject(systemActor, project.id);
      assert.deepEqual(apps, []);
    });

    test("apps link fails with exit 1 for an unknown app, organizer or project, a plain member, a stranger and the home project", async () => {
      const { developer, project: home } = await developerProject();
      const app = await createAppWithCli(home.id, "attendees:read");
      const { organizer, project } = await organizerProject();
      const member = await createUser(server.services);
      await addMember(server.services, userActor(organizer.id), project.id, member.email, "MEMBER");
      const stranger = await createUser(server.services);
      const link = (appId: string, projectId: string, as: string) =>
        eventgraph(["apps", "link", "--app", appId, "--project", projectId, "--as", as, "--json"], env);
      const cases: [Promise<{ code: number | null; stdout: string; stderr: string }>, string][] = [
        [link("3f1c0c4e-0000-4000-8000-000000000000", project.id, organizer.email), "error: App not found\n"],
        [link(app.id, project.id, uniqueEmail()), "error: User not found\n"],
        [link(app.id, "Zz9Q", organizer.email), "error: Project not found\n"],
        // Someone who may not see the project learns nothing about it: the same answer as no project.
        [link(app.id, project.id, stranger.email), "error: Project not found\n"],
        [link(app.id, project.id, member.email), "error: Only the project's owners and admins may do this\n"],
        [
          link(app.id, home.id, developer.email),
          "error: projectId: is the app's home project, which the app can always reach\n",
        ],
      ];
      for (const [run, message] of cases) {
        const { code, stdout, stderr } = await run;
        assert.deepEqual([code, stdout, stderr], [1, "", message]);
      }
      const integrations = await server.services.apps.listIntegrations(systemActor, project.id);
      assert.deepEqual(integrations, []);
    });

    test("apps link refuses an unverified developer's app to outsiders but not to the developer's own team", async () => {
      const { developer, project: home } = await developerProject({ verified: false });
      const app = await createAppWithCli(home.id, "agenda:read");
      const { organizer, project } = await organizerProject();
      const refused = await eventgraph(
        ["apps", "link", "--app", app.id, "--project", project.id, "--as", organizer.email],
        env,
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: This app's developer has not verified their email address yet/);
      // The developer linking a second project of their own is their team's business.
      const { project: own } = await createProject(server.services, { ownerId: developer.id });
      const allowed = await eventgraph(
        ["apps", "link", "--app", app.id, "--project", own.id, "--as", developer.email],
        env,
      );
      assert.equal(allowed.code, 0, allowed.stderr);
    });

    test("apps revoke and rotate-token fail with exit 1 for an unknown app or project and for the home project", async () => {
      const { project: home } = await developerProject();
      const app = await createAppWithCli(home.id, "agenda:read");
      const cases: [string[], string][] = [
        [["revoke", "--app", "no-such-app", "--project", home.id], "error: App not found\n"],
        [["revoke", "--app", app.id, "--project", "Zz9Q"], "error: Project not found\n"],
        [
          ["revoke", "--app", app.id, "--project", home.id],
          "error: projectId: is the app's home project, which only deleting the app ends\n",
        ],
        [["rotate-token", "--app", "no-such-app"], "error: App not found\n"],
      ];
      for (const [args, message] of cases) {
        const { code, stdout, stderr } = await eventgraph(["apps", ...args, "--json"], env);
        assert.deepEqual([code, stdout, stderr], [1, "", message], args.join(" "));
        assert.doesNotMatch(stderr, stackLine);
      }
      // The refused revocation left the home project reachable.
      const { body } = await gql(server.url, readAttendees, { token: app.token, variables: { id: home.id } });
      assert.equal(body.data.project.id, home.id);
    });
  });
}
