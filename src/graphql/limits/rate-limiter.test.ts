import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { RedisConnections, uniqueRedisPrefix } from "../../../test/helpers/redis.js";
import { describeNeeding, redisMissing } from "../../../test/helpers/requirements.js";
import { LogCapture } from "../../../test/helpers/test-services.js";
import { createLogger } from "../../logger.js";
import { createRateLimiter, pointsForCost, type RateLimiter } from "./rate-limiter.js";

const hour = 3600;

describe("rate limiter (in process)", () => {
  let clock = Date.UTC(2026, 4, 4, 9, 0, 0);
  const now = () => clock;

  test("rejects a request over the budget without charging it, and allows one exactly at the limit", async () => {
    const limiter = createRateLimiter({ now });
    const first = await limiter.consume("app:1", 6, 10);
    assert.deepEqual(first, {
      allowed: true,
      limit: 10,
      remaining: 4,
      resetAt: clock / 1000 + hour,
      retryAfterSeconds: 0,
    });
    clock += 60_000;
    const rejected = await limiter.consume("app:1", 5, 10);
    assert.deepEqual(rejected, {
      allowed: false,
      limit: 10,
      remaining: 4,
      resetAt: first.resetAt,
      retryAfterSeconds: hour - 60,
    });
    const exact = await limiter.consume("app:1", 4, 10);
    assert.equal(exact.allowed, true);
    assert.equal(exact.remaining, 0);
    const over = await limiter.consume("app:1", 1, 10);
    assert.equal(over.allowed, false);
    assert.equal(over.retryAfterSeconds, hour - 60);
  });

  test("opens a fresh budget when the window ends", async () => {
    const limiter = createRateLimiter({ now });
    const start = clock;
    await limiter.consume("ip:203.0.113.9", 10, 10);
    assert.equal((await limiter.consume("ip:203.0.113.9", 1, 10)).allowed, false);
    clock = start + hour * 1000 - 1;
    const last = await limiter.consume("ip:203.0.113.9", 1, 10);
    assert.equal(last.allowed, false);
    assert.equal(last.retryAfterSeconds, 1);
    clock = start + hour * 1000;
    const fresh = await limiter.consume("ip:203.0.113.9", 1, 10);
    assert.deepEqual([fresh.allowed, fresh.remaining, fresh.resetAt], [true, 9, clock / 1000 + hour]);
  });

  test("keeps keys apart and peeks without charging", async () => {
    const limiter = createRateLimiter({ now });
    await limiter.consume("app:a", 3, 5);
    assert.deepEqual(await limiter.peek("app:a", 5), await limiter.peek("app:a", 5));
    assert.equal((await limiter.peek("app:a", 5)).remaining, 2);
    assert.equal((await limiter.peek("app:b", 5)).remaining, 5);
    await limiter.consume("app:a", 2, 5);
    const spent = await limiter.peek("app:a", 5);
    assert.deepEqual([spent.allowed, spent.remaining], [false, 0]);
  });

  test("charges a request allowance with the points, both or neither, and says which refused", async () => {
    const limiter = createRateLimiter({ now });
    const allowance = { key: "introspection:ip:198.51.100.7", limit: 2, windowSeconds: 60 };
    const first = await limiter.consume("ip:198.51.100.7", 0, 5, allowance);
    assert.deepEqual([first.allowed, first.remaining, first.allowanceExceeded], [true, 5, undefined]);
    assert.equal((await limiter.consume("ip:198.51.100.7", 1, 5, allowance)).remaining, 4);
    clock += 20_000;
    const third = await limiter.consume("ip:198.51.100.7", 1, 5, allowance);
    assert.deepEqual(
      [third.allowed, third.allowanceExceeded, third.retryAfterSeconds, third.remaining],
      [false, true, 40, 4],
      "refused by the allowance, the points were not charged; it has room again within its minute",
    );
    // Over the points budget, the budget is what refuses, with its own (hourly) wait.
    const other = { ...allowance, key: "introspection:ip:198.51.100.8" };
    const over = await limiter.consume("ip:198.51.100.8", 6, 5, other);
    assert.deepEqual(
      [over.allowed, over.allowanceExceeded, over.retryAfterSeconds],
      [false, undefined, hour],
    );
    assert.equal(
      (await limiter.consume("ip:198.51.100.8", 5, 5, other)).allowed,
      true,
      "nothing was counted",
    );
    clock += 40_000;
    assert.equal((await limiter.consume("ip:198.51.100.7", 1, 5, allowance)).allowed, true);
  });

  test("charges one point per hundred cost units, at least one", () => {
    assert.deepEqual([0, 1, 100, 101, 50_000].map(pointsForCost), [1, 1, 1, 2, 500]);
  });

  test("refuses negative or fractional points and a limit below 1", () => {
    const limiter = createRateLimiter({ now });
    // A programming error, thrown at once: the in-process budget answers without a promise.
    assert.throws(() => limiter.consume("k", -1, 10), RangeError);
    assert.throws(() => limiter.consume("k", 1.5, 10), RangeError);
    assert.throws(() => limiter.consume("k", 1, 0), RangeError);
  });

  test("answers from the in-process budget without sending Redis a command while the connection is not ready", async () => {
    const logs = new LogCapture();
    // Offline queue on, no command timeout: a command sent now would wait for ever.
    const unreachable = new Redis("redis://127.0.0.1:1", { lazyConnect: true, commandTimeout: undefined });
    const limiter = createRateLimiter({ redis: unreachable, logger: createLogger("warn", logs), now });
    assert.equal((await limiter.consume("app:x", 3, 3)).allowed, true);
    assert.equal((await limiter.consume("app:x", 1, 3)).allowed, false);
    assert.equal((await limiter.peek("app:x", 3)).remaining, 0);
    assert.equal(unreachable.status, "wait", "the limiter tried to reach Redis");
    unreachable.disconnect();
  });
});

describeNeeding(await redisMissing(), "rate limiter (Redis)", () => {
  const connections = new RedisConnections();
  const prefix = uniqueRedisPrefix();
  let limiterA: RateLimiter;
  let limiterB: RateLimiter;
  before(async () => {
    // Two connections stand for two server processes.
    limiterA = createRateLimiter({ redis: await connections.open(), keyPrefix: prefix });
    limiterB = createRateLimiter({ redis: await connections.open(), keyPrefix: prefix });
  });
  after(() => connections.closeAll(prefix));

  test("shares one budget between two processes and does not charge rejected requests", async () => {
    const a = await limiterA.consume("app:shared", 7, 10);
    assert.deepEqual([a.allowed, a.remaining], [true, 3]);
    const b = await limiterB.consume("app:shared", 4, 10);
    assert.deepEqual([b.allowed, b.remaining], [false, 3]);
    assert.ok(b.retryAfterSeconds > hour - 5 && b.retryAfterSeconds <= hour);
    const exact = await limiterB.consume("app:shared", 3, 10);
    assert.deepEqual([exact.allowed, exact.remaining], [true, 0]);
    assert.equal((await limiterA.peek("app:shared", 10)).allowed, false);
    assert.ok(Math.abs(exact.resetAt - a.resetAt) <= 1);
  });

  test("never lets concurrent requests from two processes overspend", async () => {
    const attempts = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? limiterA : limiterB).consume("app:race", 1, 25),
    );
    const results = await Promise.all(attempts);
    assert.equal(results.filter((r) => r.allowed).length, 25);
    assert.equal((await limiterA.peek("app:race", 25)).remaining, 0);
  });

  test("shares a request allowance between two processes, counted with the points", async () => {
    const allowance = { key: "introspection:app:allowed", limit: 3, windowSeconds: 60 };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? limiterA : limiterB).consume("app:allowed", 0, 10, allowance),
      ),
    );
    assert.equal(results.filter((r) => r.allowed).length, 3);
    const refused = results.find((r) => !r.allowed);
    assert.equal(refused?.allowanceExceeded, true);
    assert.ok(refused && refused.retryAfterSeconds > 55 && refused.retryAfterSeconds <= 60);
    assert.equal((await limiterA.peek("app:allowed", 10)).remaining, 10);
  });

  test("peeks without charging and keeps keys apart", async () => {
    await limiterA.consume("app:p", 2, 5);
    await limiterB.peek("app:p", 5);
    assert.equal((await limiterB.peek("app:p", 5)).remaining, 3);
    assert.equal((await limiterB.peek("app:q", 5)).remaining, 5);
  });

  test("opens a fresh budget when the window ends", async () => {
    const shortA = createRateLimiter({
      redis: await connections.open(),
      keyPrefix: prefix,
      windowSeconds: 1,
    });
    const shortB = createRateLimiter({
      redis: await connections.open(),
      keyPrefix: prefix,
      windowSeconds: 1,
    });
    assert.equal((await shortA.consume("app:short", 2, 2)).allowed, true);
    const rejected = await shortB.consume("app:short", 1, 2);
    assert.deepEqual([rejected.allowed, rejected.retryAfterSeconds], [false, 1]);
    await sleep(1100);
    const fresh = await shortB.consume("app:short", 2, 2);
    assert.deepEqual([fresh.allowed, fresh.remaining], [true, 0]);
  });
});
