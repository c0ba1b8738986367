import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 41, test projects through the API: who may make one (an app's own token, for its
// developer), and what a test project's token may never do (publish it, make more, leave it).

const create = `mutation($input: CreateTestProjectInput!) {
  createTestProject(input: $input) {
    testProject { project { id name isTest status } testAppId token }
    userErrors { field message code }
  }
}`;
const reset = `mutation($input: ResetTestProjectInput!) {
  resetTestProject(input: $input) { project { id isTest } userErrors { field message code } }
}`;
const publish = `mutation($input: UpdateProjectInput!) {
  updateProject(input: $input) { project { status } userErrors { field message } }
}`;
const read = `query($id: ID!) { project(id: $id) { id isTest status sessions(first: 1) { totalCount } } }`;
const createTrack = `mutation($input: CreateTrackInput!) { createTrack(input: $input) { track { id } userErrors { message } } }`;

const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) =>
  body.errors?.[0]?.extensions?.code;

for (const engine of testEngines()) {
  describe(`test projects through the API (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("a test project's token is refused when it publishes its project, makes another, or is connected elsewhere", async () => {
      const developer = await createUser(server.services);
      const { project, token, appId } = await server.services.testProjects.create(developer.id);
      const published = await gql(server.url, publish, {
        token,
        variables: { input: { projectId: project.id, status: "PUBLISHED" } },
      });
      assert.deepEqual(published.body.data.updateProject.userErrors, [
        { field: ["status"], message: "A test project is never published" },
      ]);
      const more = await gql(server.url, create, { token, variables: { input: {} } });
      assert.equal(codeOf(more.body), "FORBIDDEN");
      assert.match(more.body.errors[0].message, /test project's token cannot create projects/);
      // Its app cannot be connected to a real project, even by that project's owner.
      const { project: real, ownerId } = await createProject(server.services);
      await assert.rejects(
        server.services.apps.authorize(userActor(ownerId), { appId, projectId: real.id }),
        /belongs to a test project/,
      );
      // Whatever path writes a link, the database refuses it.
      await assert.rejects(
        server.database.db
          .insertInto("app_links")
          .values({
            id: crypto.randomUUID(),
            app_id: appId,
            project_id: real.id,
            authorized_by: null,
            authorized_at: new Date().toISOString(),
            permissions: "agenda:read",
            revoked_at: null,
            revoked_by: null,
          })
          .execute(),
        /app_links_test_app_stays_home/,
      );
      const reached = await gql(server.url, read, { token, variables: { id: real.id } });
      assert.equal(codeOf(reached.body), "NOT_FOUND");
      const { body } = await gql(server.url, read, { token, variables: { id: project.id } });
      assert.equal(body.data.project.status, "DRAFT");
    });

    test("needs project:write on a real home project, and refuses an app whose creator left it", async () => {
      const reader = await createApp(server.services, { permissions: ["agenda:read"] });
      const refused = await gql(server.url, create, { token: reader.token, variables: { input: {} } });
      assert.equal(codeOf(refused.body), "FORBIDDEN");
      // Made by the operator: no developer to make a test project for.
      const { project } = await createProject(server.services);
      const orphan = await createApp(server.services, {
        projectId: project.id,
        permissions: ["project:write"],
      });
      const noDeveloper = await gql(server.url, create, { token: orphan.token, variables: { input: {} } });
      assert.equal(codeOf(noDeveloper.body), "FORBIDDEN");
      assert.match(noDeveloper.body.errors[0].message, /no developer/);
    });

    test("an app's own token makes a test project for its developer, reaches it, and resets it", async () => {
      const { token, ownerId } = await createApp(server.services, {
        name: "Builder",
        permissions: ["project:write", "agenda:read", "agenda:write"],
      });
      const made = await gql(server.url, create, { token, variables: { input: { name: "Checkout tests" } } });
      assert.ok(made.body.data, JSON.stringify(made.body));
      assert.deepEqual(made.body.data.createTestProject.userErrors, []);
      const { project, token: testToken, testAppId } = made.body.data.createTestProject.testProject;
      assert.equal(project.isTest, true);
      assert.equal(project.status, "DRAFT");
      assert.equal(project.name, "Test project: Checkout tests");
      assert.match(testToken, /^evg_/);
      assert.ok(testAppId);
      // The developer owns it; the calling app is linked to it and reads and writes it.
      const owners = await server.services.members.list(userActor(ownerId ?? ""), project.id);
      assert.deepEqual(
        owners.map((m) => [m.userId, m.role]),
        [[ownerId, "OWNER"]],
      );
      const seen = await gql(server.url, read, { token, variables: { id: project.id } });
      assert.ok(seen.body.data.project.sessions.totalCount >= 30);
      const track = await gql(server.url, createTrack, {
        token,
        variables: { input: { projectId: project.id, name: "Extra" } },
      });
      assert.deepEqual(track.body.data.createTrack.userErrors, []);
      const before = await gql(server.url, read, { token: testToken, variables: { id: project.id } });

      const again = await gql(server.url, reset, { token, variables: { input: { projectId: project.id } } });
      assert.deepEqual(again.body.data.resetTestProject, {
        project: { id: project.id, isTest: true },
        userErrors: [],
      });
      const tracks = await server.database.db
        .selectFrom("tracks")
        .select("name")
        .where("project_id", "=", project.id)
        .execute();
      assert.ok(!tracks.some((t) => t.name === "Extra"));
      const after = await gql(server.url, read, { token: testToken, variables: { id: project.id } });
      assert.deepEqual(after.body.data, before.body.data);

      // Its home project is real: a reset of it is refused as input, and nothing changes.
      const home = await gql(server.url, `{ viewer { homeProject { id } } }`, { token });
      const realReset = await gql(server.url, reset, {
        token,
        variables: { input: { projectId: home.body.data.viewer.homeProject.id } },
      });
      assert.deepEqual(realReset.body.data.resetTestProject.userErrors, [
        { field: ["projectId"], message: "Only a test project can be reset", code: "BAD_USER_INPUT" },
      ]);
      // A project the app does not reach is not found.
      const { project: foreign } = await createProject(server.services);
      const foreignReset = await gql(server.url, reset, {
        token,
        variables: { input: { projectId: foreign.id } },
      });
      assert.equal(codeOf(foreignReset.body), "NOT_FOUND");
    });

    test("each call costs 200 points, and a developer has at most 10 test projects", async () => {
      const { token, ownerId } = await createApp(server.services, { permissions: ["project:write"] });
      // Nine empty test projects and one made by the API: the eleventh is refused.
      const developer = userActor(ownerId ?? "");
      for (let i = 0; i < 9; i++) {
        await server.services.projects.create(ownerId ?? "", { name: `Empty ${i}` }, developer, { seed: i });
      }
      const tenth = await gql(server.url, create, { token, variables: { input: {} } });
      assert.deepEqual(tenth.body.data.createTestProject.userErrors, []);
      assert.ok(tenth.body.extensions.cost.points >= 200, JSON.stringify(tenth.body.extensions));
      const eleventh = await gql(server.url, create, { token, variables: { input: {} } });
      assert.equal(eleventh.body.data.createTestProject.testProject, null);
      assert.equal(eleventh.body.data.createTestProject.userErrors[0].code, "CONFLICT");
      assert.match(eleventh.body.data.createTestProject.userErrors[0].message, /delete one/);
    });
  });
}
