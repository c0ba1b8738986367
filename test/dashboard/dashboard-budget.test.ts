import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createUser } from "../helpers/factories.js";
import type { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 39: dashboard requests had no limit, so a session could replay its heaviest page without
// end. The counters are the throttle's (in process here; Redis shares them, tested with the
// throttle itself), so SQLite alone.

describe("the dashboard's request budget", () => {
  const server = serverPerSuite(sqliteEngine);

  async function loggedIn(): Promise<HttpClient> {
    const user = await createUser(server.services);
    return logIn(server.url, user.email);
  }

  test("a session gets 300 requests a minute, then 429 with Retry-After; another session goes on", async () => {
    const greedy = await loggedIn();
    let first429 = 0;
    for (let i = 1; i <= 320 && !first429; i++) {
      const response = await greedy.get("/account");
      if (response.status === 429) {
        first429 = i;
        assert.equal(response.headers.get("retry-after"), "60");
        assert.match(response.body, /Too many requests/);
      } else assert.equal(response.status, 200);
    }
    // Logging in took two requests of the address, none of the session's: the 301st is refused.
    assert.equal(first429, 301);
    const other = await loggedIn();
    assert.equal((await other.get("/account")).status, 200);
  });
});
