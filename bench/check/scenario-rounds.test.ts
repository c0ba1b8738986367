import assert from "node:assert/strict";
import { test } from "node:test";
import { pairedCpuRatios, sideOrders } from "../scenario-rounds.js";

// The bench's A/B figure (`--compare-tree`): one ratio per pair of rounds, so a round that cost twice
// the next for both sides (this host does that) cancels out, and the spread shows what is resolvable.
const round = (cpuUsPerRequest: number | undefined) => ({
  requests: 1000,
  requestsPerSecond: 100,
  p50Ms: 1,
  p99Ms: 2,
  failures: 0,
  ...(cpuUsPerRequest === undefined ? {} : { cpuUsPerRequest }),
});

test("paired CPU ratios: median and range of the per-round ratios, not the ratio of means", () => {
  // The means say 0.88 (1,750 against 2,000); the rounds say 1.1, 1.0, 1.1 and, once, 0.6.
  const base = [round(1000), round(3000), round(1000), round(3000)];
  const side = [round(1100), round(3000), round(1100), round(1800)];
  assert.deepEqual(pairedCpuRatios(side, base), { median: 1.05, low: 0.6, high: 1.1 });
  // An odd number of rounds takes the middle one; rounds without a CPU reading are left out.
  assert.deepEqual(pairedCpuRatios([round(500), round(900), round(2000), round(undefined)], base), {
    median: 0.5,
    low: 0.3,
    high: 2,
  });
  assert.equal(pairedCpuRatios([round(undefined)], base), undefined);
});

test("side orders: every side comes right after every other side equally often", () => {
  for (let n = 2; n <= 5; n++) {
    const orders = sideOrders(n);
    const follows = new Map<string, number>();
    for (const order of orders) {
      assert.deepEqual([...order].sort(), [...Array(n).keys()], `each order holds every side once (${n})`);
      for (let i = 1; i < order.length; i++) {
        const pair = `${order[i - 1]}→${order[i]}`;
        follows.set(pair, (follows.get(pair) ?? 0) + 1);
      }
    }
    assert.equal(follows.size, n * (n - 1), `every ordered pair occurs (${n} sides)`);
    assert.equal(new Set(follows.values()).size, 1, `equally often (${n} sides): ${[...follows]}`);
  }
});
