import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sqliteEngine } from "../../../test/helpers/engines.js";
import { uniqueEmail } from "../../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";

// An IPv6 client holds a whole /64: counted per address, it had 2^64 login budgets. The counters
// are the throttle's, the same on both engines (in process or Redis): SQLite alone.
describe("account throttles count an IPv6 /64 as one address", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(sqliteEngine);
  });
  after(() => ctx.close());

  test("20 failed logins from one /64, each from a new address in it: the 21st is refused", async () => {
    const codes: string[] = [];
    for (let i = 0; i < 21; i++) {
      const address = `2001:db8:7:9:${(i + 1).toString(16)}::1`;
      try {
        // A different account each time: only the address budget (20 in 15 minutes) can refuse.
        await ctx.services.auth.logIn({ email: uniqueEmail("nobody"), password: "wrong password" }, address);
      } catch (error) {
        codes.push((error as { code: string }).code);
      }
    }
    assert.deepEqual(codes.slice(0, 20), Array(20).fill("UNAUTHENTICATED"));
    assert.equal(codes[20], "RATE_LIMITED");
    // Another /64 is another address.
    await assert.rejects(
      ctx.services.auth.logIn(
        { email: uniqueEmail("nobody"), password: "wrong password" },
        "2001:db8:7:a::1",
      ),
      { code: "UNAUTHENTICATED" },
    );
  });
});
