import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { getIntrospectionQuery } from "graphql";
import { systemActor } from "../../src/modules/access/actor.js";
import { sqliteEngine, testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { raw } from "../helpers/raw-http.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue 38: an example's `npm run codegen` failed with "retry in 3379 s": each run's introspection
// cost 72 of the 1,000 points an address has per hour. An introspection answer is now kept, costs 1
// point (304: none) and carries an ETag; with a token the app pays, never the address.

// What graphql-codegen sends (descriptions, deprecated input values and all): the largest in use.
const standard = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  inputValueDeprecation: true,
});

const post = (server: TestServer, query: string, headers: Record<string, string> = {}, variables?: object) =>
  raw(server.url, "/api/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
const get = (server: TestServer, query: string, headers: Record<string, string> = {}) =>
  raw(server.url, `/api/graphql?query=${encodeURIComponent(query)}`, { headers });
const json = (answer: { body: Buffer }) => JSON.parse(answer.body.toString("utf8"));
const cost = (answer: { headers: Record<string, unknown> }) => Number(answer.headers["x-ratelimit-cost"]);
const remaining = (answer: { headers: Record<string, unknown> }) =>
  Number(answer.headers["x-ratelimit-remaining"]);

/** The public budget of the loopback address the tests call from, read without charging it. */
async function addressBudget(server: TestServer): Promise<number> {
  const budget = await server.services.rateLimiter.peek(
    "ip:127.0.0.1",
    server.config.limits.publicPointsPerHour,
  );
  return budget.remaining;
}

for (const engine of testEngines()) {
  describe(`introspection is cheap to repeat (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine);
    });
    after(() => server.close());

    test("300 introspections from one address leave most of its budget; repeats cost 1 point", async () => {
      const first = await post(server, standard);
      assert.equal(first.status, 200);
      assert.equal(json(first).extensions.cached, false);
      assert.ok(cost(first) > 50, `a computed answer costs its cost: ${cost(first)} points`);
      let last = first;
      for (let i = 0; i < 299; i++) {
        last = await post(server, standard);
        assert.equal(last.status, 200, `introspection ${i + 2}`);
        assert.equal(cost(last), 1);
      }
      const body = json(last);
      assert.deepEqual(body.data, json(first).data);
      assert.equal(body.extensions.cached, true);
      assert.deepEqual(body.extensions.cost, {
        requestedQueryCost: json(first).extensions.cost.requestedQueryCost,
        points: 1,
      });
      assert.equal(remaining(last), remaining(first) - 299);
      assert.ok(remaining(last) > 500, `${remaining(last)} of 1,000 points left`);
    });

    test("If-None-Match naming the answer gets 304 without a body, for nothing; GET and POST alike", async () => {
      const query = `{ __schema { queryType { name } mutationType { name } } }`;
      const first = await post(server, query);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"i-[\w-]+"$/);
      assert.equal(first.headers["cache-control"], "no-cache");
      for (const asked of [etag, etag.slice(2), `"other", ${etag}`]) {
        const before = await addressBudget(server);
        const again = await post(server, query, { "if-none-match": asked });
        assert.equal(again.status, 304, asked);
        assert.equal(again.body.byteLength, 0);
        assert.equal(again.headers.etag, etag);
        assert.equal(cost(again), 0);
        assert.equal(await addressBudget(server), before, "a 304 costs no point");
      }
      // A browser app on another origin may send it too.
      const preflight = await raw(server.url, "/api/graphql", {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, if-none-match",
        },
      });
      assert.match(String(preflight.headers["access-control-allow-headers"]), /\bif-none-match\b/);
      const fromGet = await get(server, query, { "if-none-match": etag });
      assert.equal(fromGet.status, 304);
      assert.equal(fromGet.headers["cache-control"], "public, max-age=10");
      // A dry run tells what the same request would be charged.
      const dryRun = (headers: Record<string, string>) =>
        gql(server.url, query, { extensions: { dryRun: true }, headers }).then(
          (a) => a.body.extensions.dryRun,
        );
      assert.equal((await dryRun({})).points, 1);
      assert.equal((await dryRun({ "if-none-match": etag })).points, 0);
      const changed = await post(server, query, { "if-none-match": `W/"i-something-else"` });
      assert.equal(changed.status, 200);
      assert.equal(cost(changed), 1);
      assert.equal(json(changed).data.__schema.queryType.name, "Query");
    });

    test("the ETag follows the answer: a new document or new variables change it, layout does not", async () => {
      const etagOf = async (query: string, variables?: object) =>
        String((await post(server, query, {}, variables)).headers.etag);
      const queryType = await etagOf(`{ __schema { queryType { name } } }`);
      assert.equal(
        await etagOf(`# the same document\n{\n  __schema {\n    queryType { name }\n  }\n}`),
        queryType,
      );
      const both = await etagOf(`{ __schema { queryType { name } mutationType { name } } }`);
      assert.notEqual(both, queryType);
      const byName = `query ($name: String!) { __type(name: $name) { name kind } }`;
      const project = await etagOf(byName, { name: "Project" });
      const session = await etagOf(byName, { name: "Session" });
      assert.notEqual(project, session);
      assert.equal(await etagOf(byName, { name: "Project" }), project);
      for (const etag of [queryType, both, project, session]) assert.match(etag, /^W\/"i-/);
    });

    test("with a token the app pays and the address does not; a bad token pays nothing", async () => {
      // Pinned to the version the public asks in (the oldest): each version keeps its own answers.
      const { app, token } = await createApp(server.services, { name: "Codegen", apiVersion: "2026-09-01" });
      const appBudget = async () =>
        (await server.services.rateLimiter.peek(`app:${app.id}`, server.config.limits.appPointsPerHour))
          .remaining;
      const addressBefore = await addressBudget(server);
      const appBefore = await appBudget();
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(await post(server, standard, { authorization: `Bearer ${token}` }));
      for (const answer of answers) assert.equal(answer.status, 200);
      assert.deepEqual(answers.map(cost), [1, 1, 1], "the answer is kept whoever asked first");
      assert.equal(answers[0]?.headers["x-ratelimit-limit"], String(server.config.limits.appPointsPerHour));
      assert.equal(answers[0]?.headers["cache-control"], "private, no-cache");
      assert.equal(await appBudget(), appBefore - 3);
      const notModified = await post(server, standard, {
        authorization: `Bearer ${token}`,
        "if-none-match": String(answers[0]?.headers.etag),
      });
      assert.equal(notModified.status, 304);
      assert.equal(await appBudget(), appBefore - 3);
      assert.equal(await addressBudget(server), addressBefore, "the address paid nothing");

      // A made-up token and, once rotated, the app's old one: refused as any request with them.
      const { token: fresh } = await server.services.apps.rotateToken(systemActor, { id: app.id });
      for (const bad of [`evg_${"x".repeat(40)}`, token]) {
        const refused = await post(server, standard, { authorization: `Bearer ${bad}` });
        assert.equal(refused.status, 401);
        assert.equal(json(refused).errors[0].extensions.code, "UNAUTHENTICATED");
        assert.equal(refused.headers["www-authenticate"], 'Bearer error="invalid_token"');
        assert.equal(refused.headers.etag, undefined);
      }
      assert.equal(await appBudget(), appBefore - 3, "the app paid nothing for them");
      assert.equal(await addressBudget(server), addressBefore, "nor did the address");
      assert.equal((await post(server, standard, { authorization: `Bearer ${fresh}` })).status, 200);
    });

    test("100 clients asking a new document at once get one execution, each charged its cost", async () => {
      const { token } = await createApp(server.services, { name: "Many at once" });
      const auth = { authorization: `Bearer ${token}` };
      const query = `{ __schema { types { name fields { name type { name kind } } } } }`;
      const answers = await Promise.all(Array.from({ length: 100 }, () => post(server, query, auth)));
      for (const answer of answers) assert.equal(answer.status, 200);
      assert.equal(new Set(answers.map((answer) => answer.headers.etag)).size, 1);
      const computed = answers.filter((answer) => json(answer).extensions.cached === false);
      assert.equal(computed.length, 1, "executed once; the others found it kept");
      // The one that executed it paid its cost; each other one paid the cost too when it was charged
      // before the answer was kept (the decision is made before the charge), else 1.
      const points = cost(computed[0] as (typeof answers)[number]);
      assert.ok(points > 10, `${points} points`);
      for (const answer of answers) assert.ok([points, 1].includes(cost(answer)));
      assert.equal(cost(await post(server, query, auth)), 1);
    });

    test("garbage and oversized introspection documents are refused by the limits, never kept", async () => {
      const fields = "name fields { name type { name ofType { name } } }";
      const refusals: [string, string, string | undefined][] = [
        // Ten copies of the whole schema's fields: far over 15,000 answered fields.
        [
          `{ ${Array.from({ length: 10 }, (_, i) => `s${i}: __schema { types { ${fields} } }`).join(" ")} }`,
          "QUERY_TOO_COMPLEX",
          "introspection",
        ],
        [`{ __schema { ${"types { ".repeat(3)} } }`, "GRAPHQL_PARSE_FAILED", undefined],
        [`{ __schema { nothingHere } }`, "GRAPHQL_VALIDATION_FAILED", undefined],
        // graphql-js refuses `fields` nested this deep itself; `ofType` is for the depth limit.
        [
          `{ __type(name: "Query") { ${"fields { type { ".repeat(6)}name${" } }".repeat(6)} } }`,
          "GRAPHQL_VALIDATION_FAILED",
          undefined,
        ],
        [
          `{ __type(name: "Query") { ${"ofType { ".repeat(16)}name${" }".repeat(16)} } }`,
          "QUERY_TOO_COMPLEX",
          "depth",
        ],
        [`{ __schema { ${"a: __typename ".repeat(3_400)} } }`, "QUERY_TOO_COMPLEX", "tokens"],
      ];
      for (const [query, code, limit] of refusals) {
        for (let i = 0; i < 2; i++) {
          const answer = await post(server, query);
          const error = json(answer).errors?.[0];
          assert.equal(error?.extensions.code, code, query.slice(0, 80));
          assert.equal(error?.extensions.limit, limit);
          assert.equal(answer.headers.etag, undefined);
          assert.ok(cost(answer) >= 1, "a refused document costs a point");
        }
      }
    });

    test("a document that also asks for data is charged and cached as any query", async () => {
      const { project } = await createPublishedProject(server.services);
      // The standard query's root selection with a data field beside it, its fragments after.
      const document = standard.replace(
        "query IntrospectionQuery {",
        `query Mixed { project(id: "${project.id}") { name }`,
      );
      const answers = [await post(server, document), await post(server, document)];
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal(json(answer).data.project.name, project.name);
        assert.ok(cost(answer) > 50, `charged as a query of its cost: ${cost(answer)} points`);
        assert.equal(answer.headers.etag, undefined);
        assert.equal(answer.headers["cache-control"], "no-store");
      }
      assert.deepEqual(
        answers.map((answer) => json(answer).extensions.cached),
        [false, true],
        "the response cache answers the repeat",
      );
    });
  });
}

describe("the introspection allowance bounds what costs nothing", () => {
  let server: TestServer;
  before(async () => {
    // The allowance is counted apart from the database; RATE_LIMIT is high so only it can refuse.
    server = await startTestServer(sqliteEngine, { RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "100000" });
  });
  after(() => server.close());

  test("600 introspection requests a minute, 304s included; the 601st waits under a minute, unpaid", async () => {
    const query = `{ __schema { queryType { name } } }`;
    const etag = String((await post(server, query)).headers.etag);
    const answers = await Promise.all(
      Array.from({ length: 650 }, () => post(server, query, { "if-none-match": etag })),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 304).length, 599, "600 with the first");
    assert.equal(statuses.filter((status) => status === 429).length, 51);
    const refused = answers.find((answer) => answer.status === 429);
    assert.ok(refused);
    const retryAfter = Number(refused.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    const error = json(refused).errors[0];
    assert.equal(error.extensions.code, "RATE_LIMITED");
    assert.match(error.message, /More than 600 introspection requests in 60 s; retry in \d+ s/);
    // The budget is untouched by the refusals: other requests go on.
    const before = await addressBudget(server);
    const data = await gql(server.url, "{ __typename }");
    assert.equal(data.status, 200);
    assert.equal(await addressBudget(server), before - 1);
  });
});
