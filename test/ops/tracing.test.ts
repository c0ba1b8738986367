import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { type Child, startServerProcess } from "../helpers/processes.js";

/** An OTLP/JSON span as the receiver gets it (the fields the tests read). */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number };
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};

/**
 * A real OTLP/HTTP receiver on loopback: it accepts `POST /v1/traces` in the JSON encoding (what
 * the SDK's HTTP exporter sends) and flattens every span it receives.
 */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const resources: Record<string, string>[] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      if (request.url !== "/v1/traces" || request.method !== "POST") {
        response.writeHead(404).end();
        return;
      }
      // biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON, read field by field below
      const payload = JSON.parse(body) as any;
      for (const resourceSpans of payload.resourceSpans ?? []) {
        resources.push(flatten(resourceSpans.resource?.attributes) as Record<string, string>);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ ...span, attributes: flatten(span.attributes) });
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    spans,
    resources,
    /** Waits (up to 20 s: the exporter batches for 1 s) until a span matches. */
    async waitFor(test: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const found = spans.find(test);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no matching span; received: ${spans.map((s) => s.name).join(", ")}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The exporter keeps its connection alive; close() alone would wait for it.
        server.closeAllConnections();
      }),
  };
}

function flatten(attributes: { key: string; value: AnyValue }[] | undefined) {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue);
  }
  return out;
}

async function post(url: string, body: unknown) {
  const response = await fetch(`${url}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    requestId: response.headers.get("x-request-id") ?? "",
    body: await response.json(),
  };
}

describe("OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  test("without the variable nothing is exported and log lines carry no trace ids", async () => {
    const receiver = await startReceiver();
    // A bound for a loaded machine, not a goal.
    const { child, url } = await startServerProcess(
      { DATABASE_URL: testEngines()[0]?.newDatabaseUrl() ?? "" },
      { timeoutMs: 90_000 },
    );
    try {
      const answer = await post(url, { query: 'query Probe { project(id: "ZZZZ") { name } }' });
      assert.equal(answer.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(receiver.spans.length, 0);
      assert.ok(child.logLines().every((line) => line.traceId === undefined));
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
      await receiver.close();
    }
  });

  for (const engine of testEngines()) {
    describe(`on ${engine.name}`, () => {
      let receiver: Awaited<ReturnType<typeof startReceiver>>;
      let child: Child;
      let url: string;
      before(async () => {
        receiver = await startReceiver();
        ({ child, url } = await startServerProcess(
          {
            DATABASE_URL: engine.newDatabaseUrl(),
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
            OTEL_SERVICE_NAME: "eventgraph-test",
            LOG_LEVEL: "info",
            // Module loading through the instrumentation hook is slow on a loaded machine: a bound, not a goal.
          },
          { timeoutMs: 90_000 },
        ));
      });
      after(async () => {
        child.process.kill("SIGTERM");
        await child.exited;
        await receiver.close();
      });

      test("exports a span per GraphQL operation with its name, type, cost and request id", async () => {
        const answer = await post(url, {
          query: 'query ProjectName { project(id: "ZZZZ") { name } }',
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const cost = answer.body.extensions.cost.requestedQueryCost;
        assert.ok(answer.requestId);
        const span = await receiver.waitFor(
          (s) => s.attributes["eventgraph.request_id"] === answer.requestId && s.name.startsWith("query"),
        );
        assert.equal(span.name, "query ProjectName");
        assert.equal(span.attributes["graphql.operation.name"], "ProjectName");
        assert.equal(span.attributes["graphql.operation.type"], "query");
        assert.equal(span.attributes["eventgraph.graphql.cost"], cost);
        assert.ok(receiver.resources.some((r) => r["service.name"] === "eventgraph-test"));

        // The Fastify request span is in the same trace, carries the request id, and is an ancestor.
        const requestSpan = await receiver.waitFor(
          (s) =>
            s.traceId === span.traceId &&
            s.spanId !== span.spanId &&
            s.attributes["eventgraph.request_id"] === answer.requestId,
        );
        const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
        let ancestor = byId.get(span.parentSpanId ?? "");
        while (ancestor && ancestor.spanId !== requestSpan.spanId)
          ancestor = byId.get(ancestor.parentSpanId ?? "");
        assert.ok(ancestor, "the GraphQL span is not inside the Fastify request span");
        // The HTTP server span is the root of the trace.
        await receiver.waitFor(
          (s) =>
            s.traceId === span.traceId && !s.parentSpanId && s.attributes["http.request.method"] === "POST",
        );

        // Every log line of the request names the request, and with tracing on, its trace.
        const lines = child.logLines().filter((line) => line.reqId === answer.requestId);
        assert.ok(lines.length >= 2, JSON.stringify(lines));
        for (const line of lines) assert.equal(line.traceId, span.traceId, JSON.stringify(line));
      });

      test("marks a refused operation failed with its error code", async () => {
        const answer = await post(url, { query: "query Broken { nope }" });
        assert.equal(answer.status, 400);
        const span = await receiver.waitFor(
          (s) => s.attributes["eventgraph.request_id"] === answer.requestId && s.name === "graphql",
        );
        assert.equal(span.attributes["eventgraph.error_code"], "GRAPHQL_VALIDATION_FAILED");
        assert.equal(span.status?.code, 2);
      });

      if (engine.name === "postgres") {
        test("exports the PostgreSQL statements of an operation inside its trace", async () => {
          const answer = await post(url, { query: 'query Lookup { project(id: "ZZZY") { name } }' });
          const span = await receiver.waitFor(
            (s) => s.attributes["eventgraph.request_id"] === answer.requestId && s.name === "query Lookup",
          );
          const statement = await receiver.waitFor(
            (s) =>
              s.traceId === span.traceId &&
              s.name.startsWith("pg.query") &&
              s.attributes["db.system.name"] === "postgresql",
          );
          assert.match(String(statement.attributes["db.query.text"]), /select/i);
        });
      }

      test("no span carries a link's token, a query string or GraphQL GET variables", async () => {
        const token = "TopSecretToken0123456789abcdef";
        const verify = await fetch(`${url}/verify-email?token=${token}`);
        await verify.arrayBuffer();
        const query = encodeURIComponent("query Who($e: String) { __typename }");
        const variables = encodeURIComponent(JSON.stringify({ e: "grace@example.test" }));
        const get = await fetch(`${url}/api/graphql?query=${query}&variables=${variables}`, {
          headers: { accept: "application/json" },
        });
        await get.arrayBuffer();
        // The root HTTP spans end last: both there means every span of both requests is.
        await receiver.waitFor((s) => s.name === "GET /verify-email" && !s.parentSpanId);
        await receiver.waitFor((s) => s.name === "GET /api/graphql" && !s.parentSpanId);
        const exported = JSON.stringify(receiver.spans);
        assert.doesNotMatch(exported, new RegExp(token));
        assert.doesNotMatch(exported, /grace(@|%40)example/);
        assert.ok(
          receiver.spans.some((s) => s.attributes["url.path"] === "/verify-email"),
          "the path stays",
        );
      });

      test("health checks are not traced", async () => {
        const response = await fetch(`${url}/healthz`);
        const requestId = response.headers.get("x-request-id");
        await response.arrayBuffer();
        await post(url, { query: "query After { __typename }" });
        await receiver.waitFor((s) => s.name === "query After");
        assert.ok(!receiver.spans.some((s) => s.attributes["eventgraph.request_id"] === requestId));
        assert.ok(
          !receiver.spans.some((s) =>
            String(s.attributes["url.path"] ?? s.attributes["http.target"] ?? "").startsWith("/healthz"),
          ),
        );
      });
    });
  }
});
