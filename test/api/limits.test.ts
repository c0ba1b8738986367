import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createSession } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const [sqlite] = testEngines();
if (!sqlite) throw new Error("no engine");

function nested(depth: number): string {
  let selection = "name";
  for (let i = 0; i < depth; i++)
    selection = `speakers { edges { node { sessions { project { ${selection} } } } } }`;
  return `{ project(id: "ABCD") { ${selection} } }`;
}

describe("operation limits", () => {
  const server = serverPerSuite(sqlite, {
    MAX_QUERY_DEPTH: "12",
    MAX_QUERY_COST: "2000",
    MAX_BODY_BYTES: "500000",
  });

  async function expectTooComplex(query: string, limit: string) {
    const { status, body } = await gql(server.url, query);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.errors[0].extensions.code, "QUERY_TOO_COMPLEX");
    assert.equal(body.errors[0].extensions.limit, limit);
    assert.match(body.errors[0].message, new RegExp(`^${limit} is \\d+, the limit is \\d+$`));
    assert.equal(body.data, undefined, "nothing executed");
  }

  test("refuses a query deeper than MAX_QUERY_DEPTH before running it", async () => {
    await expectTooComplex(nested(3), "depth");
  });

  test("refuses a query whose page sizes multiply past MAX_QUERY_COST", async () => {
    await expectTooComplex(
      `{ project(id: "ABCD") { speakers(first: 100) { edges { node { sessions { project { sessions(first: 100) { edges { node { title } } } } } } } } } }`,
      "cost",
    );
  });

  test("refuses more than 100 aliases and more than 10,000 tokens", async () => {
    const aliases = Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(" ");
    await expectTooComplex(`{ ${aliases} }`, "aliases");
    const tokens = Array.from({ length: 10_001 }, () => "__typename").join(" ");
    await expectTooComplex(`{ ${tokens} }`, "tokens");
  });

  test("previews cost, depth, nodes and missing permissions with dryRun, without running it", async () => {
    const { project } = await createPublishedProject(server.services);
    const { token } = await createApp(server.services, {
      projectId: project.id,
      permissions: ["agenda:read"],
    });
    const mutation = `mutation { updateProject(input: {projectId: "${project.id}", name: "Changed"}) { project { name attendees(first: 50) { edges { node { email } } } } } }`;
    const before = await gql(server.url, "{ rateLimit { remaining } }", { token });
    const dry = await gql(server.url, mutation, { token, extensions: { dryRun: true } });
    assert.equal(dry.status, 200);
    assert.equal(dry.body.data, undefined);
    const preview = dry.body.extensions.dryRun;
    assert.ok(preview.cost > 50, JSON.stringify(preview));
    assert.ok(preview.depth >= 5);
    assert.ok(preview.nodeCount >= 50);
    assert.deepEqual(preview.missingPermissions.sort(), ["attendees:read", "project:write"]);
    assert.equal(
      (await server.services.projects.get(systemActor, project.id)).name,
      project.name,
      "not executed",
    );
    const afterwards = await gql(server.url, "{ rateLimit { remaining points } }", { token });
    // The two rateLimit queries cost one point each; the dry run only its validation (a document
    // the server had not seen): one point.
    assert.equal(afterwards.body.data.rateLimit.remaining, before.body.data.rateLimit.remaining - 2);
  });
});

describe("rate limits", () => {
  const server = serverPerSuite(sqlite, {
    RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "3",
    RATE_LIMIT_APP_POINTS_PER_HOUR: "5",
  });

  test("charges public requests per client IP and answers 429 with Retry-After past the budget", async () => {
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const { status, headers, body } = await gql(server.url, "{ __typename }");
      assert.equal(status, 200);
      seen.push([
        headers.get("x-ratelimit-limit"),
        headers.get("x-ratelimit-remaining"),
        body.extensions.rateLimit.remaining,
      ]);
    }
    assert.deepEqual(seen, [
      ["3", "2", 2],
      ["3", "1", 1],
      ["3", "0", 0],
    ]);
    const refused = await gql(server.url, "{ __typename }");
    assert.equal(refused.status, 429);
    assert.equal(refused.body.errors[0].extensions.code, "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal(refused.body.data, undefined);
  });

  test("gives each app its own budget, reported by Query.rateLimit", async () => {
    const { token } = await createApp(server.services);
    const first = await gql(server.url, "{ rateLimit { limit remaining cost points } }", { token });
    // Five fields cost five; points are the cost per hundred, at least one.
    assert.deepEqual(first.body.data.rateLimit, { limit: 5, remaining: 4, cost: 5, points: 1 });
    const { token: other } = await createApp(server.services);
    const second = await gql(server.url, "{ rateLimit { remaining } }", { token: other });
    assert.equal(second.body.data.rateLimit.remaining, 4);
  });
});

for (const engine of testEngines()) {
  describe(`response cache (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const agenda = (id: string) => `{ project(id: "${id}") { name sessions { edges { node { title } } } } }`;

    test("serves a repeated query from the cache until a write to the project", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      await createSession(server.services, owner, project.id, { title: "First", status: "PUBLISHED" });
      const one = await gql(server.url, agenda(project.id));
      const two = await gql(server.url, agenda(project.id));
      assert.equal(one.body.extensions.cached, false);
      assert.equal(two.body.extensions.cached, true);
      assert.deepEqual(two.body.data, one.body.data);
      await createSession(server.services, owner, project.id, {
        title: "Second",
        status: "PUBLISHED",
        startsAt: "2026-05-04T11:00:00Z",
      });
      const three = await gql(server.url, agenda(project.id));
      assert.equal(three.body.extensions.cached, false);
      assert.deepEqual(
        three.body.data.project.sessions.edges.map((e: { node: { title: string } }) => e.node.title),
        ["First", "Second"],
      );
    });

    test("never serves one caller's answer to another", async () => {
      const { project, owner } = await createPublishedProject(server.services);
      await createSession(server.services, owner, project.id, { title: "Draft", status: "DRAFT" });
      const drafts = `{ project(id: "${project.id}") { sessions(status: [DRAFT]) { edges { node { title } } } } }`;
      const reader = await createApp(server.services, {
        projectId: project.id,
        permissions: ["agenda:read"],
      });
      const stranger = await createApp(server.services, { permissions: [] });
      assert.equal(
        (await gql(server.url, drafts, { token: reader.token })).body.data.project.sessions.edges.length,
        1,
      );
      assert.equal((await gql(server.url, drafts, { token: reader.token })).body.extensions.cached, true);
      const public1 = await gql(server.url, drafts);
      const other = await gql(server.url, drafts, { token: stranger.token });
      for (const response of [public1, other]) assert.equal(response.body.extensions.cached, false);
      assert.equal(public1.body.errors[0].extensions.code, "FORBIDDEN");
      // An app not linked to the project is told so (test/api/refusals.test.ts).
      assert.equal(other.body.errors[0].extensions.code, "NOT_FOUND");
    });

    test("forgets a cached NOT_FOUND once the project is published, and a project once unpublished", async () => {
      const { project } = await createPublishedProject(server.services);
      await server.services.projects.update(systemActor, project.id, { status: "DRAFT" });
      const query = `{ project(id: "${project.id}") { name } }`;
      assert.equal((await gql(server.url, query)).body.data.project, null);
      assert.equal((await gql(server.url, query)).body.extensions.cached, true);
      await server.services.projects.update(systemActor, project.id, { status: "PUBLISHED" });
      assert.equal((await gql(server.url, query)).body.data.project.name, project.name);
      await server.services.projects.update(systemActor, project.id, { status: "ARCHIVED" });
      assert.equal((await gql(server.url, query)).body.data.project, null);
    });

    test("stops serving an app's cached answers when its link is revoked", async () => {
      const { app, token } = await createApp(server.services, { permissions: ["agenda:read"] });
      const owner = await server.services.users.create({
        email: `o-${Date.now()}@example.test`,
        name: "O",
        password: "long enough pw",
      });
      await server.services.users.markEmailVerified(owner.id);
      const project = await server.services.projects.create(owner.id, { name: "Linked" });
      await server.services.apps.authorize(
        { kind: "user", userId: owner.id },
        { appId: app.id, projectId: project.id },
      );
      const query = `{ project(id: "${project.id}") { name } }`;
      assert.equal((await gql(server.url, query, { token })).body.data.project.name, "Linked");
      assert.equal((await gql(server.url, query, { token })).body.extensions.cached, true);
      await server.services.apps.revokeLink(
        { kind: "user", userId: owner.id },
        { appId: app.id, projectId: project.id },
      );
      const after = await gql(server.url, query, { token });
      assert.equal(after.body.data.project, null);
      assert.equal(after.body.errors[0].extensions.code, "NOT_FOUND");
    });
  });
}
