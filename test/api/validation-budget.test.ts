import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue 39: a token-less document that validation gives up on held the event loop 0.13–0.26 s and
// cost nothing. The database plays no part here (the document never reaches a resolver): SQLite only.

/**
 * The document: one selection repeated `copies` times (400 fit in 10,000 tokens), with a
 * comment that changes per request so no cache remembers it.
 */
function repeated(projectId: string, copies: number): string {
  const block = `project(id: "${projectId}") { sessions(first: 1) { edges { node { title } } } } `;
  return `# ${Math.random()}\n{ ${block.repeat(copies)} }`;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

describe("validation is paid for, and a document too large to validate cheaply is refused first", () => {
  let server: TestServer;
  let projectId: string;
  before(async () => {
    server = await startTestServer(sqliteEngine, { RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "60" });
    ({
      project: { id: projectId },
    } = await createPublishedProject(server.services));
  });
  after(() => server.close());

  test("more than 500 selections are refused before validation, and the refusal is charged", async () => {
    const answer = await gql(server.url, repeated(projectId, 400));
    assert.equal(answer.status, 400);
    assert.equal(answer.body.errors[0].extensions.code, "QUERY_TOO_COMPLEX");
    assert.equal(answer.body.errors[0].extensions.limit, "selections");
    assert.equal(answer.body.errors[0].message, "selections is 2000, the limit is 500");
    assert.equal(answer.headers.get("x-ratelimit-cost"), "1");
  });

  test("an invalid document costs its validation; once the budget is spent, no document is validated", async () => {
    // 99 copies: 495 selections, just within the bound; every one conflicts with an alias below.
    const invalid = () => repeated(projectId, 99).replace("{ project", "{ project: __typename project");
    const remaining: number[] = [];
    let refused: Awaited<ReturnType<typeof gql>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await gql(server.url, invalid());
      if (answer.status === 429) refused = answer;
      else {
        assert.equal(answer.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
        assert.equal(answer.headers.get("x-ratelimit-cost"), "20", "496 selections: 20 points");
        remaining.push(Number(answer.headers.get("x-ratelimit-remaining")));
      }
    }
    // 60 points, minus the refusal of the test before: two documents, then RATE_LIMITED.
    assert.deepEqual(remaining, [39, 19]);
    assert.equal(refused?.body.errors[0].extensions.code, "RATE_LIMITED");
    assert.ok(Number(refused?.headers.get("retry-after")) > 0);
  });
});

describe("/healthz stays quick while one client sends the issue's documents back to back", () => {
  let server: TestServer;
  let projectId: string;
  before(async () => {
    server = await startTestServer(sqliteEngine);
    ({
      project: { id: projectId },
    } = await createPublishedProject(server.services));
  });
  after(() => server.close());

  test("60 of them, loopback only: /healthz p50 under 50 ms and none over 250 ms", async () => {
    let running = true;
    const attack = (async () => {
      for (let i = 0; i < 60; i++) {
        const answer = await gql(server.url, repeated(projectId, 400));
        assert.ok(answer.status === 400 || answer.status === 429, String(answer.status));
      }
    })().finally(() => {
      running = false;
    });
    const waits: number[] = [];
    while (running) {
      const started = performance.now();
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await attack;
    assert.ok(waits.length >= 3, `only ${waits.length} health checks ran`);
    const p50 = quantile(waits, 0.5);
    const worst = Math.max(...waits);
    assert.ok(p50 < 50, `/healthz p50 ${Math.round(p50)} ms`);
    assert.ok(worst < 250, `/healthz max ${Math.round(worst)} ms`);
  });
});
