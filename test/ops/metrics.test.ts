import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startServerProcess } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";
import { startTestServer } from "../helpers/test-server.js";
import { freePort } from "../helpers/throwaway-servers.js";

const token = "metrics-token-0123456789abcdef";

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

async function scrape(url: string, bearer?: string) {
  const response = await fetch(`${url}/metrics`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("GET /metrics", () => {
  test("is not served unless METRICS_TOKEN or METRICS_PORT is set", async () => {
    const [engine] = testEngines();
    if (!engine) throw new Error("no engine");
    const server = await startTestServer(engine);
    try {
      assert.equal((await scrape(server.url)).status, 404);
      assert.equal((await scrape(server.url, token)).status, 404);
    } finally {
      await server.close();
    }
  });

  test("refuses a METRICS_TOKEN short enough to guess", () => {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: "short" }),
      (error: unknown) => error instanceof ConfigError && /METRICS_TOKEN/.test(error.message),
    );
  });

  for (const engine of testEngines()) {
    test(`[${engine.name}] with METRICS_TOKEN: 401 without the bearer token, and the Prometheus text counts requests by route and operation type, errors by code, cache hits, rate-limit rejections and process figures`, async () => {
      const server = await startTestServer(engine, {
        METRICS_TOKEN: token,
        RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "5",
      });
      try {
        for (const bearer of [undefined, "wrong-token-0123456789abcdef", `${token}x`]) {
          const refused = await scrape(server.url, bearer);
          assert.equal(refused.status, 401);
          assert.doesNotMatch(refused.text, /eventgraph_/);
        }
        const before = (await scrape(server.url, token)).text;
        const { project } = await createPublishedProject(server.services);
        // On PostgreSQL the change feed brings the project's creation again, and would evict the
        // answer cached below if it arrived after it.
        await feedListens(server.services);
        const query = `query($id: ID!) { project(id: $id) { name } }`;
        await gql(server.url, query, { variables: { id: project.id } });
        const hit = await gql(server.url, query, { variables: { id: project.id } });
        assert.equal(hit.body.extensions.cached, true);
        assert.equal((await gql(server.url, "{ project(")).status, 200);
        // The public budget is 5 points: spent within a few requests.
        let limited = 0;
        for (let i = 0; i < 6; i++) limited = (await gql(server.url, "{ __typename }")).status;
        assert.equal(limited, 429);

        const after = await scrape(server.url, token);
        assert.equal(after.status, 200);
        assert.match(String(after.type), /^text\/plain/);
        const delta = (name: string, labels = "") =>
          (sample(after.text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
        const route = 'route="/api/graphql",method="POST",status="200"';
        assert.ok(delta("eventgraph_http_request_duration_seconds_count", route) >= 4, after.text);
        assert.ok(
          delta(
            "eventgraph_graphql_operation_duration_seconds_count",
            'operation_type="query",status="200"',
          ) >= 4,
        );
        assert.ok(delta("eventgraph_api_errors_total", 'code="GRAPHQL_PARSE_FAILED"') >= 1);
        assert.ok(delta("eventgraph_api_errors_total", 'code="RATE_LIMITED"') >= 1);
        assert.ok(delta("eventgraph_rate_limit_rejections_total", 'kind="ip"') >= 1);
        assert.ok(delta("eventgraph_response_cache_hits_total") >= 1);
        assert.ok((sample(after.text, "eventgraph_response_cache_entries") ?? 0) >= 1);
        assert.equal(sample(after.text, "eventgraph_db_up"), 1);
        for (const name of [
          "eventgraph_process_resident_memory_bytes",
          "eventgraph_nodejs_eventloop_lag_p99_seconds",
          "eventgraph_nodejs_heap_size_used_bytes",
        ]) {
          assert.ok((sample(after.text, name) ?? -1) >= 0, `${name} missing`);
        }
        // The scrape itself is not a URL label: no raw paths or query strings become label values.
        assert.doesNotMatch(after.text, new RegExp(project.id));
      } finally {
        await server.close();
      }
    });
  }

  test("with METRICS_PORT: served on 127.0.0.1 at that port without a token, not on the main port, with SQL latency", async () => {
    const port = await freePort();
    const dir = temporaryFolder("eventgraph-metrics-");
    const { child, url } = await startServerProcess(
      {
        DATABASE_URL: `sqlite:${join(dir, "db.sqlite")}`,
        METRICS_PORT: String(port),
      },
      { timeoutMs: 60_000 },
    );
    try {
      await gql(url, "{ __typename }");
      assert.equal((await scrape(url)).status, 404);
      const scraped = await scrape(`http://127.0.0.1:${port}`);
      assert.equal(scraped.status, 200);
      assert.ok(
        (sample(scraped.text, "eventgraph_db_query_duration_seconds_count", 'engine="sqlite"') ?? 0) > 0,
      );
      assert.ok(
        (sample(
          scraped.text,
          "eventgraph_http_request_duration_seconds_count",
          'route="/api/graphql",method="POST",status="200"',
        ) ?? 0) >= 1,
      );
      assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
    }
  });
});
