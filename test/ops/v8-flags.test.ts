import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { spawnNode } from "../helpers/processes.js";

// One keep-alive connection, one request after another: as in the bench's allocation drill.
function post(agent: Agent, url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/api/graphql`,
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

test("the server makes no pretenuring decision, from start-up through 3,000 requests", async () => {
  // V8 prints each allocation site's decision with this flag; "=> tenure" is a site whose objects it
  // will allocate old from then on (src/v8-flags.ts says why the server turns that off).
  const child = spawnNode(["--trace-pretenuring-statistics", "dist/src/main.js"], {
    env: {
      HOST: "127.0.0.1",
      PORT: "0",
      DATABASE_URL: sqliteEngine.newDatabaseUrl(),
      RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "1000000",
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const line = await child.waitForLog((l) => l.msg === "Eventgraph is listening");
    const url = String(line.url);
    for (let i = 0; i < 3000; i++) {
      // Misses (each body differs) and hits, as a server's day has both.
      const body = JSON.stringify({ query: "{ __typename }", variables: { nonce: i % 2 === 0 ? i : 0 } });
      assert.equal(await post(agent, url, body), 200);
    }
  } finally {
    agent.destroy();
    child.process.kill("SIGTERM");
    await child.exited;
  }
  // The flag's statistics prove it was read: V8 visited allocation sites before the server set it.
  assert.match(child.stdout, /pretenuring: /);
  const tenured = child.stdout.split("\n").filter((l) => /=> tenure$/.test(l));
  assert.deepEqual(tenured, []);
});
