import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds, peakRssMiB } from "../processes.js";

// The bench's CPU per request of a server with workers (`WEB_CONCURRENCY=2`, the limit's node:cluster):
// the primary only hands out connections, so its own CPU time says nothing of the work.
test("a process's CPU time counts its live child processes', and its peak RSS is the largest one's", async () => {
  // A parent that only waits, and a child of it that fills 150 MiB, spins for 600 ms and then waits.
  const child = `const kept = Buffer.alloc(150 * 1024 * 1024, 1); const end = Date.now() + 600; while (Date.now() < end); setTimeout(() => kept, 10000);`;
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(child)}], { stdio: "ignore" }); setTimeout(() => {}, 10000);`,
    ],
    { stdio: "ignore", detached: true },
  );
  try {
    await sleep(1500);
    const seconds = cpuSeconds(parent.pid) ?? 0;
    // The parent alone used its start-up (~0.1 s); with its child, the 0.6 s of spinning as well.
    assert.ok(seconds >= 0.55, `counted ${seconds} s`);
    // The parent alone peaks near 40 MiB.
    const peak = peakRssMiB(parent.pid) ?? 0;
    assert.ok(peak >= 150, `peak ${peak} MiB`);
  } finally {
    // The whole group: the parent and the child it started.
    if (parent.pid) process.kill(-parent.pid, "SIGKILL");
  }
});
