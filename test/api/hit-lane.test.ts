import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createSession } from "../helpers/factories.js";
import { decoded, postJson, type RawAnswer } from "../helpers/raw-http.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

/**
 * The hit lane (src/graphql/hit-lane.ts) answers repeated API queries before Fastify. Its answers
 * must be the route's own: each test compares a hit the lane served with one Fastify served for the
 * same cache entry. A body the JSON parser has not seen goes to Fastify (the lane parses nothing),
 * so the same request sent as other JSON text (spaced differently) is the route's hit, and the
 * same text sent again is the lane's.
 */

const post = (server: TestServer, body: string, headers: Record<string, string> = {}) =>
  postJson(server.url, body, headers);

// The fields that differ between any two answers: the request id, and the budget left.
const perRequest = new Set(["x-request-id", "x-ratelimit-remaining", "ratelimit", "date"]);
function sameFields(lane: RawAnswer, route: RawAnswer): void {
  const fields = (answer: RawAnswer) =>
    Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !perRequest.has(name)));
  assert.deepEqual(fields(lane), fields(route));
  assert.match(String(lane.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
  assert.notEqual(lane.headers["x-request-id"], route.headers["x-request-id"]);
}

/** The answer without the budget left, which each request changes. */
function withoutRemaining(answer: RawAnswer): unknown {
  const parsed = JSON.parse(decoded(answer));
  delete parsed.extensions?.rateLimit?.remaining;
  return parsed;
}

/** The same request as two JSON texts: the first spaced as JSON.stringify does, the second not. */
function twoTexts(query: string, variables?: Record<string, unknown>): [string, string] {
  return [JSON.stringify({ query, variables }), JSON.stringify({ query, variables }, null, 1)];
}

/** The lane's hit and the route's hit of one cache entry (after the miss that stored it). */
async function laneAndRoute(
  server: TestServer,
  [laneText, routeText]: [string, string],
  headers: Record<string, string> = {},
): Promise<{ lane: RawAnswer; route: RawAnswer }> {
  const miss = await post(server, laneText, headers);
  assert.equal(miss.status, 200, decoded(miss));
  // The route's first hit of a body tells the lane to read bodies of its length from then on.
  const unread = server.services.responseCache.stats().laneHits;
  assert.equal(JSON.parse(decoded(await post(server, laneText, headers))).extensions.cached, true);
  const before = server.services.responseCache.stats();
  assert.equal(before.laneHits, unread, "a body of a length no hit had is left to the route");
  const route = await post(server, routeText, headers);
  const between = server.services.responseCache.stats();
  const lane = await post(server, laneText, headers);
  const afterwards = server.services.responseCache.stats();
  assert.equal(between.hits, before.hits + 1, "the route's request was a hit");
  assert.equal(between.laneHits, before.laneHits, "the route's request did not take the lane");
  assert.equal(afterwards.laneHits, between.laneHits + 1, "the repeated text took the lane");
  assert.equal(afterwards.hits, between.hits + 1);
  return { lane, route };
}

test("with the hit-lane fast path off, every hit is the route's", async () => {
  const [engine] = testEngines();
  if (!engine) throw new Error("no test engine");
  const server = await startTestServer(engine, { EVENTGRAPH_FAST_PATHS: "-hit-lane" });
  try {
    const { project } = await createPublishedProject(server.services);
    const body = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
    for (let i = 0; i < 4; i++) assert.equal((await post(server, body)).status, 200);
    const stats = server.services.responseCache.stats();
    assert.equal(stats.hits, 3);
    assert.equal(stats.laneHits, 0);
  } finally {
    await server.close();
  }
});

for (const engine of testEngines()) {
  describe(`the hit lane (${engine.name})`, { skip: fastPathOff("hit-lane") }, () => {
    let server: TestServer;
    let projectId: string;
    let token: string;
    before(async () => {
      server = await startTestServer(engine, { METRICS_TOKEN: "metrics-token-of-the-tests" });
      const { project, owner, ownerId } = await createPublishedProject(server.services);
      projectId = project.id;
      // Enough sessions that the answer is worth compressing (over 1 KB).
      for (let i = 0; i < 20; i++) {
        const title = `Talk ${i}: the hit lane and what clients expect of it`;
        await createSession(server.services, owner, projectId, { title, status: "PUBLISHED" });
      }
      const permissions = ["agenda:read", "project:write"] as const;
      token = (await createApp(server.services, { projectId, ownerId, permissions: [...permissions] })).token;
    });
    after(() => server.close());

    const agenda = () =>
      `query Agenda { project(id: "${projectId}") { name sessions(first: 50) { edges { node { id title } } } } }`;

    test("answers a public hit as the route does: status, every header field, the body", async () => {
      const { lane, route } = await laneAndRoute(server, twoTexts(agenda()));
      assert.equal(lane.status, 200);
      sameFields(lane, route);
      assert.deepEqual(withoutRemaining(lane), withoutRemaining(route));
      assert.equal(JSON.parse(decoded(lane)).extensions.cached, true);
      // Each answer is charged: the budget goes down by the same points through either way.
      const left = (answer: RawAnswer) => Number(answer.headers["x-ratelimit-remaining"]);
      assert.equal(left(route) - left(lane), Number(lane.headers["x-ratelimit-cost"]));
    });

    test("answers an app's hit with its token as the route does", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const headers = { authorization: `Bearer ${token}` };
      const { lane, route } = await laneAndRoute(server, twoTexts(`${agenda()} `), headers);
      assert.equal(lane.headers["cache-control"], "private, no-store");
      sameFields(lane, route);
      assert.deepEqual(withoutRemaining(lane), withoutRemaining(route));
    });

    for (const coding of ["br", "gzip"]) {
      test(`compresses a hit in ${coding} as the route does`, async () => {
        const headers = { "accept-encoding": coding, accept: "application/graphql-response+json" };
        const texts = twoTexts(agenda(), { coding });
        const { lane, route } = await laneAndRoute(server, texts, headers);
        assert.equal(lane.headers["content-encoding"], coding);
        sameFields(lane, route);
        assert.deepEqual(withoutRemaining(lane), withoutRemaining(route));
      });
    }

    test("refuses past the budget as the route does, and hands on what it cannot answer", async () => {
      const limited = await startTestServer(engine, { RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "3" });
      try {
        const { project } = await createPublishedProject(limited.services);
        const [laneText, routeText] = twoTexts(`{ project(id: "${project.id}") { name } }`);
        assert.equal((await post(limited, laneText)).status, 200);
        assert.equal((await post(limited, laneText)).status, 200);
        assert.equal((await post(limited, laneText)).status, 200);
        const lane = await post(limited, laneText);
        const route = await post(limited, routeText);
        assert.equal(lane.status, 429);
        // The first hit of the text is the route's; the third 200 and the 429 are the lane's.
        assert.equal(limited.services.responseCache.stats().laneHits, 2);
        sameFields(lane, route);
        assert.equal(decoded(lane), decoded(route));
        assert.equal(JSON.parse(decoded(lane)).errors[0].extensions.code, "RATE_LIMITED");
      } finally {
        await limited.close();
      }
    });

    test("hands on a remembered body that is not a hit: a miss, a bad token, a write", async () => {
      const text = JSON.stringify({ query: `{ project(id: "${projectId}") { name description } }` });
      const first = await post(server, text);
      // A write evicts the answer: the remembered text is now a miss, executed by the route.
      const updated = await post(
        server,
        JSON.stringify({
          query: `mutation { updateProject(input: { projectId: "${projectId}", description: "Changed" }) { project { id } } }`,
        }),
        { authorization: `Bearer ${token}` },
      );
      assert.equal(updated.status, 200, decoded(updated));
      const again = await post(server, text);
      assert.equal(again.status, 200);
      assert.equal(JSON.parse(decoded(again)).extensions.cached, false, decoded(again));
      assert.notDeepEqual(JSON.parse(decoded(again)).data, JSON.parse(decoded(first)).data);
      // An unknown token on a remembered text: the route refuses it.
      const refused = await post(server, text, { authorization: "Bearer evg_not_a_token" });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers["www-authenticate"], 'Bearer error="invalid_token"');
    });

    test("never serves an app's answer past a change of its permissions or its token", async () => {
      const { app, token: own } = await createApp(server.services, {
        projectId,
        permissions: ["agenda:read"],
      });
      const text = JSON.stringify({
        query: `{ project(id: "${projectId}") { name sessions(first: 2) { totalCount } } }`,
      });
      const headers = { authorization: `Bearer ${own}` };
      await post(server, text, headers);
      const hit = await post(server, text, headers);
      assert.equal(JSON.parse(decoded(hit)).extensions.cached, true);
      const lane = server.services.responseCache.stats().laneHits;
      // New permissions are a new view: the lane's prepared operation for the old one is not used.
      await server.services.apps.updateApp(systemActor, { id: app.id, permissions: ["attendees:read"] });
      const widened = await post(server, text, headers);
      assert.equal(JSON.parse(decoded(widened)).extensions.cached, false);
      assert.equal(server.services.responseCache.stats().laneHits, lane);
      assert.equal(JSON.parse(decoded(await post(server, text, headers))).extensions.cached, true);
      // A rotated token stops at once, on the very text the lane answered a moment ago.
      await server.services.apps.rotateToken(systemActor, { id: app.id });
      const refused = await post(server, text, headers);
      assert.equal(refused.status, 401);
    });

    test("counts its answers in the metrics under the route's labels", async () => {
      const texts = twoTexts(`{ project(id: "${projectId}") { id name } }`);
      await laneAndRoute(server, texts);
      const metrics = await fetch(`${server.url}/metrics`, {
        headers: { authorization: "Bearer metrics-token-of-the-tests" },
      }).then((r) => r.text());
      assert.match(metrics, /eventgraph_response_cache_lane_hits_total [1-9]/);
      assert.match(
        metrics,
        /eventgraph_http_request_duration_seconds_count\{[^}]*route="\/api\/graphql"[^}]*\} [1-9]/,
      );
    });

    test("writes the access log lines the route writes", async () => {
      // Spaced so that no earlier test had a hit of its length.
      const texts = twoTexts(`{ project(id: "${projectId}") {   name id } }`);
      const from = server.logs.lines.length;
      const { lane, route } = await laneAndRoute(server, texts);
      const linesOf = (answer: RawAnswer) =>
        server.logs.lines
          .slice(from)
          .map((line) => JSON.parse(line))
          .filter((line) => line.reqId === answer.headers["x-request-id"])
          .map(({ time: _time, reqId: _reqId, responseTime, ...line }) => ({
            ...line,
            responseTime: typeof responseTime,
            req: line.req && { ...line.req, requestId: typeof line.req.requestId },
          }));
      assert.equal(linesOf(lane).length, 2);
      assert.deepEqual(linesOf(lane), linesOf(route));
    });

    test("survives a client that leaves mid-body, and answers pipelined requests in order", async () => {
      const text = JSON.stringify({ query: `{ project(id: "${projectId}") { name } }` });
      await post(server, text);
      const port = new URL(server.url).port;
      const head = (length: number) =>
        `POST /api/graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(head(Buffer.byteLength(text)) + text.slice(0, 10));
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on("close", () => resolve());
      });
      const answers = await new Promise<string>((resolve) => {
        let received = "";
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(head(Buffer.byteLength(text)) + text + head(Buffer.byteLength(text)) + text);
        });
        socket.on("data", (chunk) => {
          received += chunk.toString("utf8");
          if ((received.match(/"cached":true/g) ?? []).length === 2) {
            socket.destroy();
            resolve(received);
          }
        });
      });
      assert.equal((answers.match(/HTTP\/1\.1 200 OK\r\n/g) ?? []).length, 2);
    });
  });
}
