import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { RedisConnections, redisTestUrl, uniqueRedisPrefix } from "../../test/helpers/redis.js";
import { describeNeeding, redisMissing } from "../../test/helpers/requirements.js";
import { LogCapture } from "../../test/helpers/test-services.js";
import { responseCacheKey } from "../graphql/cache/cache-key.js";
import { ResponseCache } from "../graphql/cache/response-cache.js";
import { createLogger } from "../logger.js";
import { ProjectChanges } from "../shared/project-changes.js";
import { connectProjectChanges } from "./project-changes-relay.js";
import { connectRedisSignals, createLocalSignals, type Signals } from "./signals.js";

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const keyOf = (projectId: string) =>
  responseCacheKey({ view: "public", query: "{ project { name } }", variables: { id: projectId } });

function cacheWith(...projectIds: string[]): ResponseCache {
  const cache = new ResponseCache();
  for (const id of projectIds) cache.store(keyOf(id), Buffer.from(id), [id], cache.begin());
  return cache;
}

describe("signals (in process)", () => {
  test("delivers to the topic's subscribers before publish returns, and not after unsubscribing", () => {
    const signals = createLocalSignals();
    const seen: string[] = [];
    const off = signals.subscribe("project-changed", (id) => seen.push(`first ${id}`));
    signals.subscribe("project-changed", (id) => seen.push(`second ${id}`));
    void signals.publish("project-changed", "AAAA");
    off();
    void signals.publish("project-changed", "BBBB");
    assert.deepEqual(seen, ["first AAAA", "second AAAA", "second BBBB"]);
    assert.equal(signals.status, "up");
  });

  test("keeps delivering to the other subscribers when one throws", () => {
    const logs = new LogCapture();
    const signals = createLocalSignals(createLogger("error", logs));
    const seen: string[] = [];
    signals.subscribe("project-changed", () => {
      throw new Error("boom");
    });
    signals.subscribe("project-changed", (id) => seen.push(id));
    void signals.publish("project-changed", "AAAA");
    assert.deepEqual(seen, ["AAAA"]);
    assert.match(logs.text, /a listener failed/);
  });

  test("invalidates the cache as soon as a write is notified", async () => {
    const changes = new ProjectChanges();
    const cache = cacheWith("AAAA", "BBBB");
    const disconnect = connectProjectChanges(changes, createLocalSignals(), cache);
    changes.announce("AAAA");
    assert.equal(cache.get(keyOf("AAAA")), undefined);
    assert.ok(cache.get(keyOf("BBBB")));
    disconnect();
    changes.announce("BBBB");
    assert.ok(cache.get(keyOf("BBBB")), "no longer wired after disconnecting");
  });
});

describeNeeding(await redisMissing(), "signals (Redis)", () => {
  const connections = new RedisConnections();
  const buses: Signals[] = [];
  after(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await connections.closeAll();
  });

  /** Two processes' buses on one Redis, apart from every other test by their prefix. */
  async function twoProcesses(keyPrefix = uniqueRedisPrefix()) {
    const a = await connectRedisSignals({ redis: await connections.open(), keyPrefix });
    const b = await connectRedisSignals({ redis: await connections.open(), keyPrefix });
    buses.push(a, b);
    return { a, b, keyPrefix };
  }

  test("lets two processes see each other's messages, each delivered once", async () => {
    const { a, b } = await twoProcesses();
    const atA: string[] = [];
    const atB: string[] = [];
    a.subscribe("project-changed", (id) => atA.push(id));
    b.subscribe("project-changed", (id) => atB.push(id));
    await a.publish("project-changed", "AAAA");
    assert.deepEqual(atA, ["AAAA"], "delivered locally before publish resolved");
    await b.publish("project-changed", "BBBB");
    await waitFor(() => atA.length === 2 && atB.length === 2, "both messages on both processes");
    await sleep(50);
    assert.deepEqual(atA, ["AAAA", "BBBB"]);
    assert.deepEqual([...atB].sort(), ["AAAA", "BBBB"]);
  });

  test("keeps deployments with different prefixes apart", async () => {
    const first = await twoProcesses();
    const other = await twoProcesses();
    const seen: string[] = [];
    other.b.subscribe("project-changed", (id) => seen.push(id));
    await first.a.publish("project-changed", "AAAA");
    await other.a.publish("project-changed", "BBBB");
    await waitFor(() => seen.length === 1, "the own deployment's message");
    await sleep(50);
    assert.deepEqual(seen, ["BBBB"]);
  });

  test("clears the other process's cache when a project changes on one", async () => {
    const { a, b } = await twoProcesses();
    const changesA = new ProjectChanges();
    const cacheA = cacheWith("AAAA", "BBBB");
    const cacheB = cacheWith("AAAA", "BBBB");
    connectProjectChanges(changesA, a, cacheA);
    connectProjectChanges(new ProjectChanges(), b, cacheB);
    const markB = cacheB.begin();
    changesA.announce("AAAA");
    assert.equal(cacheA.get(keyOf("AAAA")), undefined, "the writing process drops it at once");
    await waitFor(() => cacheB.stats().entries === 1, "the invalidation on the other process");
    assert.equal(cacheB.get(keyOf("AAAA")), undefined);
    assert.ok(cacheB.get(keyOf("BBBB")));
    // A response process B started computing before it heard of the write is not stored.
    assert.equal(cacheB.store(keyOf("AAAA"), Buffer.from("stale"), ["AAAA"], markB), false);
  });

  test("suspends the cache while the subscription is broken and resumes once it is back", async () => {
    const { a, b, keyPrefix } = await twoProcesses();
    const cacheB = cacheWith("AAAA");
    connectProjectChanges(new ProjectChanges(), b, cacheB);
    const statuses: string[] = [];
    b.onStatus((status) => statuses.push(status));
    const admin = await connections.open();
    const clients = String(await admin.client("LIST"));
    const ids = clients
      .split("\n")
      .filter((line) => line.includes(` name=${keyPrefix}signals `))
      .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    assert.equal(ids.length, 2, "one subscriber connection per process");
    for (const id of ids) await admin.client("KILL", "ID", String(id));
    await waitFor(() => statuses.includes("down"), "the status to go down");
    assert.equal(cacheB.get(keyOf("AAAA")), undefined);
    await waitFor(() => b.status === "up" && a.status === "up", "both subscribers to come back");
    assert.deepEqual(statuses, ["down", "up"]);
    // Back up: it stores again and hears invalidations again.
    assert.equal(cacheB.store(keyOf("AAAA"), Buffer.from("x"), ["AAAA"], cacheB.begin()), true);
    await a.publish("project-changed", "AAAA");
    await waitFor(() => cacheB.stats().entries === 0, "the invalidation after reconnecting");
  });

  test("still delivers locally and logs when Redis cannot take the message", async () => {
    const logs = new LogCapture();
    const publisher = new Redis(redisTestUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await publisher.connect();
    const bus = await connectRedisSignals({
      redis: publisher,
      keyPrefix: uniqueRedisPrefix(),
      logger: createLogger("error", logs),
    });
    buses.push(bus);
    const seen: string[] = [];
    bus.subscribe("project-changed", (id) => seen.push(id));
    publisher.disconnect();
    await bus.publish("project-changed", "AAAA");
    assert.deepEqual(seen, ["AAAA"]);
    assert.match(logs.text, /could not tell the other processes/);
  });
});
