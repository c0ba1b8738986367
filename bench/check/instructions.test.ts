import assert from "node:assert/strict";
import { test } from "node:test";
import { describeNeeding, valgrindMissing } from "../../test/helpers/requirements.js";
import { benchOutput } from "./bench-output.js";

// The instruction count runs the real server under valgrind and reads callgrind's dumps: if the
// counting were not switched on, or the wrong dump read, the counts would be zero, equal, or fail.
describeNeeding(valgrindMissing(), "npm run bench -- --instructions", () => {
  test("counts what each request executes on Eventgraph and on the peers, a page miss several times a hit", async () => {
    const { results } = await benchOutput<{
      results: { scenario: string; side: string; instructionsPerRequest: number; windows: number[] }[];
    }>(
      "instructions",
      [
        "--datasets=sqlite1",
        "--scenarios=small-hit,agenda-miss",
        "--requests=30",
        "--windows=3",
        "--warmup=1000",
      ],
      // Three processes start under valgrind and warm up there: about 4 minutes on a quiet host, and
      // 538 s was seen on a loaded one; the bound is the
      // runner's ten minutes a file (scripts/test-worker.mjs), less the set-up.
      590_000,
    );
    const of = (scenario: string, side = ".") =>
      results.find((r) => r.scenario === scenario && r.side === side)?.instructionsPerRequest ?? 0;
    // A hit answers stored bytes; an agenda miss builds 50 sessions with rooms, tracks and speakers
    // (ten times the instructions, warm). A short warm-up leaves compiling in both counts: with 200
    // requests, a loaded CI machine counted only 2.7 times.
    assert.ok(of("small-hit") > 100_000, JSON.stringify(results));
    assert.ok(of("agenda-miss") > 2 * of("small-hit"), JSON.stringify(results));
    // The peers, counted the same way: merc-db builds the agenda from the same file; the Fastify
    // floor only sends the hit's bytes. Each is its own process, counted from its own dump.
    assert.ok(of("small-hit", "fastify") > 50_000, JSON.stringify(results));
    assert.ok(of("agenda-miss", "merc-db") > 2 * of("small-hit", "fastify"), JSON.stringify(results));
    assert.equal(results.length, 5, JSON.stringify(results));
    // Each figure is the median of its three windows.
    for (const r of results) {
      assert.equal(r.windows.length, 3);
      assert.equal(r.instructionsPerRequest, [...r.windows].sort((a, b) => a - b)[1]);
    }
  });
});
