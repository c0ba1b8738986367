import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { auditServer } from "graphql-http";
import { testEngines } from "../helpers/engines.js";
import { createPublishedProject } from "../helpers/factories.js";
import { type GraphQLResponse, gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const [sqlite] = testEngines();

async function post(
  server: TestServer,
  body: string,
  headers: Record<string, string> = { "content-type": "application/json" },
) {
  const response = await fetch(`${server.url}/api/graphql`, { method: "POST", headers, body });
  const parsed: GraphQLResponse = {
    status: response.status,
    headers: response.headers,
    body: await response.json(),
  };
  return parsed;
}

describe("GraphQL over HTTP", () => {
  let server: TestServer;
  before(async () => {
    if (!sqlite) throw new Error("no engine");
    server = await startTestServer(sqlite, { MAX_BODY_BYTES: "4096" });
  });
  after(() => server.close());

  test("passes every MUST and SHOULD of the graphql-http audit", async () => {
    const results = await auditServer({ url: `${server.url}/api/graphql` });
    const failed = results.filter(
      (r) => r.status !== "ok" && (r.name.startsWith("MUST") || r.name.startsWith("SHOULD")),
    );
    assert.deepEqual(
      failed.map((r) => `${r.name}: ${"reason" in r ? r.reason : ""}`),
      [],
    );
    assert.ok(results.length >= 40, `ran ${results.length} audits`);
  });

  test("refuses malformed requests with a clear error in the GraphQL shape", async () => {
    const notJson = await post(server, "{ not json");
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.errors[0].extensions.code, "BAD_REQUEST");
    const text = await post(server, "{ __typename }", { "content-type": "text/plain" });
    assert.equal(text.status, 415);
    const none = await post(server, JSON.stringify({ query: "{ __typename }" }), {});
    assert.ok(none.status >= 400 && none.status < 500);
    const batch = await post(
      server,
      JSON.stringify([{ query: "{ __typename }" }, { query: "{ __typename }" }]),
    );
    assert.equal(batch.status, 400);
    assert.match(batch.body.errors[0].message, /Batched requests/);
    const noQuery = await post(server, JSON.stringify({ variables: {} }));
    assert.equal(noQuery.status, 400);
    assert.match(noQuery.body.errors[0].message, /query/);
    const badVariables = await post(server, JSON.stringify({ query: "{ __typename }", variables: [1] }));
    assert.equal(badVariables.status, 400);
  });

  test("answers a body over MAX_BODY_BYTES with 413 PAYLOAD_TOO_LARGE", async () => {
    const { status, body } = await post(
      server,
      JSON.stringify({ query: `{ __typename } # ${"x".repeat(5000)}` }),
    );
    assert.equal(status, 413);
    assert.equal(body.errors[0].extensions.code, "PAYLOAD_TOO_LARGE");
  });

  test("serves queries over GET with variables, never mutations", async () => {
    const { project } = await createPublishedProject(server.services);
    const params = new URLSearchParams({
      query: "query P($id: ID!) { project(id: $id) { name } }",
      variables: JSON.stringify({ id: project.id }),
    });
    const ok = await fetch(`${server.url}/api/graphql?${params}`);
    assert.equal(ok.status, 200);
    assert.equal(
      ((await ok.json()) as { data: { project: { name: string } } }).data.project.name,
      project.name,
    );
    const mutation = new URLSearchParams({
      query: `mutation { updateProject(input: {projectId: "${project.id}", name: "x"}) { project { name } } }`,
    });
    const refused = await fetch(`${server.url}/api/graphql?${mutation}`);
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get("allow"), "POST");
  });

  test("picks the response media type from Accept", async () => {
    const modern = await gql(server.url, "{ nope }", {
      headers: { accept: "application/graphql-response+json" },
    });
    assert.equal(modern.status, 400);
    assert.match(modern.headers.get("content-type") ?? "", /^application\/graphql-response\+json/);
    assert.equal(modern.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
    const legacy = await gql(server.url, "{ nope }");
    assert.equal(legacy.status, 200);
    assert.equal(legacy.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
    const parse = await gql(server.url, "{ project(", {
      headers: { accept: "application/graphql-response+json" },
    });
    assert.equal(parse.status, 400);
    assert.equal(parse.body.errors[0].extensions.code, "GRAPHQL_PARSE_FAILED");
    const html = await gql(server.url, "{ __typename }", { headers: { accept: "text/html" } });
    assert.equal(html.status, 406);
  });

  test("supports introspection", async () => {
    const { body } = await gql(server.url, "{ __schema { queryType { name } types { name } } }");
    assert.equal(body.data.__schema.queryType.name, "Query");
    const names = body.data.__schema.types.map((t: { name: string }) => t.name);
    for (const name of ["Project", "Session", "Attendee", "Permission", "Viewer", "RateLimit"])
      assert.ok(names.includes(name), name);
  });
});

for (const engine of testEngines()) {
  describe(`internal errors (${engine.name})`, () => {
    test("are masked: no stack, no SQL, a request id to quote, and the detail in the log", async () => {
      const server = await startTestServer(engine);
      try {
        const { project } = await createPublishedProject(server.services);
        await server.database.close();
        const { status, body, headers } = await gql(server.url, `{ project(id: "${project.id}") { name } }`);
        assert.equal(status, 200);
        const error = body.errors[0];
        assert.equal(error.extensions.code, "INTERNAL_SERVER_ERROR");
        assert.equal(error.extensions.requestId, headers.get("x-request-id"));
        assert.match(error.message, /Quote request id/);
        const text = JSON.stringify(body);
        for (const leak of ["select", "SELECT", "at ", "kysely", "sqlite", "postgres", ".js"]) {
          assert.ok(!text.includes(leak), `response leaks ${leak}: ${text}`);
        }
        assert.ok(server.logs.text.includes(error.extensions.requestId), "the log names the request id");
      } finally {
        await server.app.close();
      }
    });
  });
}
