import assert from "node:assert/strict";
import { test } from "node:test";
import { sqliteEngine } from "../../test/helpers/engines.js";
import { type ChildServer, startEventgraph, unthrottled } from "../processes.js";
import { gcCounters } from "../server-metrics.js";

const token = "bench-test-metrics-token-0123456789";

async function sendQueries(server: ChildServer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }", variables: { nonce: i } }),
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  }
}

// The bench's `gc:` line reads a real server's own GC metrics; full collections are what tell a
// process that promotes its requests' objects from one that does not.
for (const [name, nodeArgs, fullExpected] of [
  ["counts the time of collections", [], false],
  // V8's --gc-global makes every collection a full one.
  ["counts full collections as such", ["--gc-global"], true],
] as const) {
  test(`gcCounters ${name}`, async () => {
    const server = await startEventgraph(
      {
        DATABASE_URL: sqliteEngine.newDatabaseUrl(),
        LOG_LEVEL: "warn",
        METRICS_TOKEN: token,
        ...unthrottled,
      },
      [...nodeArgs],
    );
    try {
      // Warm-up: start-up's own collections are behind us.
      await sendQueries(server, 200);
      const before = await gcCounters(server, token);
      await sendQueries(server, 1500);
      const after = await gcCounters(server, token);
      // 1,500 executed queries allocate well past a young generation (16 MiB at most).
      assert.ok(after.seconds > before.seconds, `GC seconds ${before.seconds} → ${after.seconds}`);
      const full = after.full - before.full;
      assert.ok(Number.isInteger(full) && full >= 0, `full ${before.full} → ${after.full}`);
      if (fullExpected) assert.ok(full > 0, `full ${before.full} → ${after.full}`);
    } finally {
      await server.stop();
    }
  });
}
