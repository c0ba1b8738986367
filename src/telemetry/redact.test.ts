import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { RedactingExporter, redactStatement, redactUrl } from "./redact.js";

test("statements leave without the values written into them", () => {
  assert.equal(
    redactStatement(
      `insert into attendees (name, email, n) values ('Grace O''Hopper', E'g@x.test', 42), ($1, $2, -3.5e2)`,
    ),
    "insert into attendees (name, email, n) values (?, ?, ?), ($1, $2, ?)",
  );
  assert.equal(
    redactStatement("select $tag$secret$tag$, $$x$$ from t2 where c1 = 7"),
    "select ?, ? from t2 where c1 = ?",
  );
  assert.equal(redactStatement(`select "col1" from "t" limit $1`), `select "col1" from "t" limit $1`);
});

test("URLs leave without their query string or a token in the path", () => {
  assert.equal(redactUrl("/verify-email?token=abc123"), "/verify-email?REDACTED");
  assert.equal(redactUrl("/api/graphql?query={x}&variables={}"), "/api/graphql?REDACTED");
  assert.equal(
    redactUrl("/e/0190f1aa-0000-7000-8000-000000000001/registration/short"),
    "/e/0190f1aa-0000-7000-8000-000000000001/registration/REDACTED",
  );
  assert.equal(redactUrl("/x/AbCdEfGhIjKlMnOpQrStUvWxYz012345"), "/x/REDACTED");
  assert.equal(
    redactUrl("http://h/b/0190f1aa-0000-7000-8000-000000000001/agenda"),
    "http://h/b/0190f1aa-0000-7000-8000-000000000001/agenda",
  );
});

test("a real span goes through the exporter with its attributes redacted, the rest intact", async () => {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new RedactingExporter(memory))],
  });
  const span = provider.getTracer("t").startSpan("GET", {
    attributes: {
      "url.path": "/reset-password?token=s3cret",
      "url.query": "token=s3cret",
      "url.full": "http://127.0.0.1/reset-password?token=s3cret",
      "db.statement": "select * from users where email = 'ada@example.test'",
      "http.request.method": "GET",
    },
  });
  span.end();
  await provider.forceFlush();
  const [exported] = memory.getFinishedSpans();
  assert.ok(exported);
  assert.equal(exported.name, "GET");
  assert.equal(exported.spanContext().traceId, span.spanContext().traceId);
  assert.deepEqual(exported.attributes, {
    "url.path": "/reset-password?REDACTED",
    "url.full": "http://127.0.0.1/reset-password?REDACTED",
    "db.statement": "select * from users where email = ?",
    "http.request.method": "GET",
  });
  assert.doesNotMatch(JSON.stringify(memory.getFinishedSpans().map((s) => s.attributes)), /s3cret|ada@/);
  await provider.shutdown();
});
