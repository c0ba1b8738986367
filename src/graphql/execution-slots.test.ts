import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { describe, test } from "node:test";
import { ExecutionSlots, type OperationKind } from "./execution-slots.js";

// Occupies every slot until the returned function is called.
function occupy(slots: ExecutionSlots): () => void {
  let free!: () => void;
  const held = new Promise<void>((resolve) => {
    free = resolve;
  });
  for (let i = 0; i < slots.concurrency; i++) void slots.run("read", () => held);
  return free;
}

// Queues `kinds` in order, each recording its name when it runs; resolves with the order of runs.
function queue(slots: ExecutionSlots, kinds: [string, OperationKind][]): Promise<string[]> {
  const order: string[] = [];
  return Promise.all(kinds.map(([name, kind]) => slots.run(kind, async () => void order.push(name)))).then(
    () => order,
  );
}

describe("execution slots", () => {
  test("never runs more operations at once than it has slots", async () => {
    const slots = new ExecutionSlots({ concurrency: 2 });
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => slots.run(i % 3 ? "read" : "write", task)));
    assert.equal(most, 2);
    assert.equal(slots.wouldWait("read"), false);
  });

  test("a write waiting behind queued reads takes the next free slot", async () => {
    const slots = new ExecutionSlots({ concurrency: 1 });
    const free = occupy(slots);
    assert.equal(slots.wouldWait("write"), true);
    const order = queue(slots, [
      ["read 1", "read"],
      ["read 2", "read"],
      ["write", "write"],
      ["read 3", "read"],
    ]);
    free();
    assert.deepEqual(await order, ["write", "read 1", "read 2", "read 3"]);
  });

  test("a flood of writes does not starve the waiting reads", async () => {
    const slots = new ExecutionSlots({ concurrency: 1, writesPerRead: 2 });
    const free = occupy(slots);
    const order = queue(slots, [
      ["read 1", "read"],
      ["read 2", "read"],
      ...Array.from({ length: 6 }, (_, i): [string, OperationKind] => [`write ${i + 1}`, "write"]),
    ]);
    free();
    assert.deepEqual(await order, [
      "write 1",
      "write 2",
      "read 1",
      "write 3",
      "write 4",
      "read 2",
      "write 5",
      "write 6",
    ]);
  });

  test("reads past their limit wait while writes take the free slots", async () => {
    const slots = new ExecutionSlots({ concurrency: 3, reads: 1 });
    let freeRead!: () => void;
    const reading = slots.run("read", () => new Promise<void>((resolve) => (freeRead = resolve)));
    assert.equal(slots.wouldWait("read"), true);
    assert.equal(slots.wouldWait("write"), false);
    const order: string[] = [];
    const later = queue(slots, [["read 2", "read"]]);
    // Two writes run beside the one read, and finish before it.
    await Promise.all([
      slots.run("write", async () => void order.push("write 1")),
      slots.run("write", async () => void order.push("write 2")),
    ]);
    assert.deepEqual(order, ["write 1", "write 2"]);
    freeRead();
    await reading;
    assert.deepEqual(await later, ["read 2"]);
    assert.equal(slots.wouldWait("read"), false);
  });

  test("under a limit of one read, reads run one at a time in arrival order", async () => {
    const slots = new ExecutionSlots({ concurrency: 4, reads: 1 });
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const read = (name: string) =>
      slots.run("read", async () => {
        running++;
        most = Math.max(most, running);
        order.push(name);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running--;
      });
    await Promise.all([read("1"), read("2"), read("3"), read("4")]);
    assert.deepEqual(order, ["1", "2", "3", "4"]);
    assert.equal(most, 1);
  });

  test("a read that runs long lets the next read start beside it", async () => {
    const slots = new ExecutionSlots({ concurrency: 2, reads: 1, longReadMs: 100 });
    let free!: () => void;
    const long = slots.run("read", () => new Promise<void>((resolve) => (free = resolve)));
    const started = performance.now();
    const ran: number[] = [];
    const next = slots.run("read", async () => {
      ran.push(performance.now() - started);
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ran, [], "the second read started while the first was still short");
    await next;
    assert.ok((ran[0] ?? 0) >= 99, `started after ${ran[0]} ms`);
    // Both slots taken by long reads: a third waits for one to finish, however long they run.
    const third = slots.run("read", async () => "third");
    const hold = slots.run("read", () => new Promise<void>((resolve) => setTimeout(resolve, 150)));
    assert.equal(await third, "third");
    free();
    await Promise.all([long, hold]);
    assert.equal(slots.wouldWait("read"), false);
  });

  test("a read queued as the running one turns long is started, even when the clock moved on meanwhile", async () => {
    // The process may be descheduled between the check that makes a read wait and the timer that
    // wakes it (seen under load in CI): by then no running read is short, so no timer is set.
    // The clock below jumps 60 ms at every reading, as such a pause would make it.
    const slots = new ExecutionSlots({ concurrency: 2, reads: 1, longReadMs: 100 });
    const now = performance.now;
    let clock = 0;
    performance.now = () => (clock += 60);
    try {
      let free!: () => void;
      const long = slots.run("read", () => new Promise<void>((resolve) => (free = resolve)));
      const next = slots.run("read", async () => "next");
      const late = new Promise((resolve) => setTimeout(resolve, 1000, "never started"));
      assert.equal(await Promise.race([next, late]), "next");
      free();
      await long;
    } finally {
      performance.now = now;
    }
  });

  test("an operation that throws gives its slot back", async () => {
    const slots = new ExecutionSlots({ concurrency: 1 });
    await assert.rejects(
      slots.run("write", () => Promise.reject(new Error("failed"))),
      /failed/,
    );
    assert.equal(await slots.run("read", async () => "ran"), "ran");
  });
});
