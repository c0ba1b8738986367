import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCliInProcess as eventgraph, onlyJson } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite, type TestServer } from "../helpers/test-server.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

// Issue 41, test projects: a developer's project of demo data, marked TEST, never published,
// reset to its initial data; its tokens and API work as on any project.

const counts = `query($id: ID!) { project(id: $id) { id isTest status sessions(first: 1) { totalCount } tracks(first: 100) { edges { node { name } } } } }`;
const updateProject = `mutation($input: UpdateProjectInput!) { updateProject(input: $input) { project { status } userErrors { field message } } }`;
const createTrack = `mutation($input: CreateTrackInput!) { createTrack(input: $input) { track { id } userErrors { message } } }`;

async function rowCount(server: TestServer, table: "attendees" | "sessions" | "tracks", projectId: string) {
  const row = await server.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const engine of testEngines()) {
  describe(`test projects (${engine.name})`, () => {
    const server = serverPerSuite(engine, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });

    test("a test project is never published: the service refuses it, and so does the database", async () => {
      const developer = await createUser(server.services);
      const { project, token } = await server.services.testProjects.create(developer.id);
      const refused = await gql(server.url, updateProject, {
        token,
        variables: { input: { projectId: project.id, status: "PUBLISHED" } },
      });
      assert.equal(refused.status, 200);
      assert.deepEqual(refused.body.data.updateProject.userErrors, [
        { field: ["status"], message: "A test project is never published" },
      ]);
      // Whatever path writes the status, the database refuses it.
      await assert.rejects(
        server.database.db
          .updateTable("projects")
          .set({ status: "PUBLISHED" })
          .where("id", "=", project.id)
          .execute(),
        /projects_test_never_published/,
      );
      const { body } = await gql(server.url, counts, { token, variables: { id: project.id } });
      assert.equal(body.data.project.status, "DRAFT");
      // Nor can a test project be made by writing the flag onto a published one.
      const { project: real } = await createProject(server.services, { input: { status: "PUBLISHED" } });
      await assert.rejects(
        server.database.db.updateTable("projects").set({ is_test: 1 }).where("id", "=", real.id).execute(),
        /projects_test_never_published/,
      );
    });

    test("created in one step with demo data and a working token, marked isTest in the API", async () => {
      const developer = await createUser(server.services);
      const { project, token } = await server.services.testProjects.create(developer.id);
      assert.equal(project.isTest, true);
      assert.equal(project.status, "DRAFT");
      const { status, body } = await gql(server.url, counts, { token, variables: { id: project.id } });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.data.project.isTest, true);
      assert.ok(body.data.project.sessions.totalCount >= 30);
      assert.ok((await rowCount(server, "attendees", project.id)) >= 1000);
      // Writes work as on any project.
      const created = await gql(server.url, createTrack, {
        token,
        variables: { input: { projectId: project.id, name: "Added by the app" } },
      });
      assert.deepEqual(created.body.data.createTrack.userErrors, []);
      // An ordinary project says it is not one.
      const { project: real } = await createProject(server.services);
      assert.equal(real.isTest, false);
    });

    test("a reset brings back the initial data, keeps the app and its token, and refuses a real project", async () => {
      const developer = await createUser(server.services);
      // The demo data is dated from `now` (check-ins fall in 15-minute bins): one instant for both
      // the creation and the reset, so a slow run crossing a bin's edge still compares like with like.
      const now = new Date();
      const { project, token } = await server.services.testProjects.create(
        developer.id,
        userActor(developer.id),
        now,
      );
      // The Overview's counters (kept by triggers) without the ids, which a reset draws anew.
      const overview = async () => {
        const actor = userActor(developer.id);
        const access = await server.services.access.require(actor, project.id);
        const figures = await server.services.overview.overview(access, project);
        return JSON.stringify(figures, (key, value) => (key === "id" ? undefined : value));
      };
      const initialFigures = await overview();
      const before = {
        attendees: await rowCount(server, "attendees", project.id),
        sessions: await rowCount(server, "sessions", project.id),
        tracks: await rowCount(server, "tracks", project.id),
      };
      await gql(server.url, createTrack, {
        token,
        variables: { input: { projectId: project.id, name: "Extra" } },
      });
      await server.database.db.deleteFrom("attendees").where("project_id", "=", project.id).execute();
      assert.equal(await rowCount(server, "tracks", project.id), before.tracks + 1);

      await server.services.testProjects.reset(userActor(developer.id), project.id, now);
      assert.deepEqual(
        {
          attendees: await rowCount(server, "attendees", project.id),
          sessions: await rowCount(server, "sessions", project.id),
          tracks: await rowCount(server, "tracks", project.id),
        },
        before,
      );
      assert.equal(await overview(), initialFigures);
      // The answer cached before the reset is gone: the API reads the new data.
      const { body } = await gql(server.url, counts, { token, variables: { id: project.id } });
      assert.ok(
        !body.data.project.tracks.edges.some((e: { node: { name: string } }) => e.node.name === "Extra"),
      );

      const { project: real, ownerId } = await createProject(server.services);
      await assert.rejects(
        server.services.testProjects.reset(userActor(ownerId), real.id),
        /Only a test project/,
      );
      // Someone else's test project is not found, not reset.
      const stranger = await createUser(server.services);
      await assert.rejects(
        server.services.testProjects.reset(userActor(stranger.id), project.id),
        /not found/,
      );
    });

    test("webhooks of its app are delivered as on any project", async () => {
      const receiver = await startReceiver();
      try {
        const developer = await createUser(server.services);
        const { project, token, appId } = await server.services.testProjects.create(developer.id);
        await server.services.webhooks.configure(userActor(developer.id), {
          appId,
          url: receiver.url,
          events: ["track.created"],
        });
        await gql(server.url, createTrack, {
          token,
          variables: { input: { projectId: project.id, name: "Hooked" } },
        });
        const [delivered] = await receiver.waitFor(1, { timeoutMs: 20_000 });
        assert.equal(delivered?.json.type, "track.created");
      } finally {
        await receiver.close();
      }
    });

    test("the CLI creates one (token shown once) and resets it", async () => {
      const env = { DATABASE_URL: server.config.databaseUrl };
      assert.equal((await eventgraph(["projects", "create-test"], env)).code, 2);
      const developer = await createUser(server.services);
      const made = await eventgraph(["projects", "create-test", "--owner", developer.email, "--json"], env);
      assert.equal(made.code, 0, made.stderr);
      const { id, isTest, token } = onlyJson(made.stdout);
      assert.equal(isTest, true);
      assert.match(String(token), /^evg_/);
      const reset = await eventgraph(["projects", "reset-test", "--project", String(id), "--json"], env);
      assert.equal(reset.code, 0, reset.stderr);
      assert.deepEqual(onlyJson(reset.stdout), { id, reset: true });
      const { project: real } = await createProject(server.services);
      const refused = await eventgraph(["projects", "reset-test", "--project", real.id], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Only a test project/);
    });
  });
}
