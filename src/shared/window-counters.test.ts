import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { RedisConnections, uniqueRedisPrefix } from "../../test/helpers/redis.js";
import { describeNeeding, redisMissing } from "../../test/helpers/requirements.js";
import { createWindowCounters, type WindowCounters } from "./window-counters.js";

const minute = 60_000;
const login = (key: string) => ({ key: `login:${key}`, points: 1, limit: 2, windowMs: minute });
const office = { key: "ip:10.0.0.1", points: 1, limit: 3, windowMs: minute };

/** The same checks in process and over Redis: one mechanism, one behaviour. */
function behavesAsWindowCounters(make: () => Promise<WindowCounters[]>) {
  test("charges every key or none: a key at its limit refuses the take and nothing is counted", async () => {
    const [a, b = a] = await make();
    assert.ok(a && b);
    assert.equal((await a.take([login("ada"), office], true)).allowed, true);
    assert.equal((await b.take([login("ada"), office], true)).allowed, true);
    // Ada's budget is spent: the office's counter must not move for her refused attempt.
    assert.equal((await a.take([login("ada"), office], true)).allowed, false);
    const peek = await b.take([login("bob"), office], false);
    assert.deepEqual(
      peek.windows.map((w) => w.used),
      [0, 2],
    );
    assert.equal((await b.take([login("bob"), office], true)).allowed, true);
    assert.equal((await a.take([login("cy"), office], true)).allowed, false, "the office is at its limit");
  });

  test("gives back and clears", async () => {
    const [a, b = a] = await make();
    assert.ok(a && b);
    await a.take([login("dee")], true);
    await a.take([login("dee")], true);
    assert.equal((await b.take([login("dee")], false)).allowed, false);
    await b.giveBack(login("dee").key);
    assert.equal((await a.take([login("dee")], true)).allowed, true);
    await a.clear(login("dee").key);
    const fresh = await b.take([login("dee")], false);
    assert.deepEqual([fresh.allowed, fresh.windows[0]?.used], [true, 0]);
  });
}

describe("window counters (in process)", () => {
  behavesAsWindowCounters(async () => [
    createWindowCounters({ keyPrefix: "t:", maxKeys: 100, what: "test", now: () => 0 }),
  ]);

  test("answers without a promise and opens a new window when one ends", () => {
    let clock = 0;
    const counters = createWindowCounters({ keyPrefix: "t:", maxKeys: 100, what: "test", now: () => clock });
    const first = counters.take([login("eve")], true);
    assert.ok(!(first instanceof Promise));
    assert.deepEqual(first.windows, [{ used: 1, msLeft: minute }]);
    clock = minute;
    assert.deepEqual((counters.take([login("eve")], true) as { windows: unknown }).windows, [
      { used: 1, msLeft: minute },
    ]);
  });
});

describeNeeding(await redisMissing(), "window counters (Redis)", () => {
  const connections = new RedisConnections();
  const prefix = uniqueRedisPrefix();
  after(() => connections.closeAll(prefix));
  // Two connections stand for two server processes.
  behavesAsWindowCounters(async () => [
    createWindowCounters({ redis: await connections.open(), keyPrefix: prefix, maxKeys: 100, what: "test" }),
    createWindowCounters({ redis: await connections.open(), keyPrefix: prefix, maxKeys: 100, what: "test" }),
  ]);
});
