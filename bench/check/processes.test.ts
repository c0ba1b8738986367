import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds, peakRssMiB } from "../processes.js";

// The bench's CPU per request of a server with workers (`WEB_CONCURRENCY=2`, the limit's node:cluster):
// the primary only hands out connections, so its own CPU time says nothing of the work.
test("a process's CPU time counts its live child processes', and its peak RSS is the largest one's", async () => {
  // A parent that only waits, and a child of it that fills 150 MiB, spins until it has used 0.6 s of
  // CPU (CPU time, not wall time: on a loaded host 600 ms of wall time may be far less CPU) and waits.
  const child = `const kept = Buffer.alloc(150 * 1024 * 1024, 1); while (process.cpuUsage().user < 600000); setTimeout(() => kept, 60000);`;
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(child)}], { stdio: "ignore" }); setTimeout(() => {}, 60000);`,
    ],
    { stdio: "ignore", detached: true },
  );
  try {
    // The parent alone uses its start-up (~0.1 s) and peaks near 40 MiB: only with its child's
    // figures does it reach the child's spinning and size, however long the host takes to get there.
    let seconds = 0;
    let peak = 0;
    for (const until = Date.now() + 30_000; Date.now() < until && (seconds < 0.55 || peak < 150); ) {
      await sleep(200);
      seconds = cpuSeconds(parent.pid) ?? 0;
      peak = peakRssMiB(parent.pid) ?? 0;
    }
    assert.ok(seconds >= 0.55, `counted ${seconds} s`);
    assert.ok(peak >= 150, `peak ${peak} MiB`);
  } finally {
    // The whole group: the parent and the child it started.
    if (parent.pid) process.kill(-parent.pid, "SIGKILL");
  }
});
