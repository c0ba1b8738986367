import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../helpers/processes.js";

// The allocation bench reads V8's GC trace of a real server: if the trace's format or the window
// were read wrongly, the counts would be zero or the same for every scenario.
test("npm run bench -- --allocation counts what each request allocates, bigger pages more", async () => {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-allocation-"));
  try {
    const out = join(dir, "allocation.json");
    await promisify(execFile)(
      process.execPath,
      [
        "dist/bench/allocation.js",
        "--datasets=sqlite1",
        "--scenarios=small-miss,attendees-miss",
        "--requests=300",
        "--warmup=100",
        `--out=${out}`,
      ],
      { cwd: repoRoot, timeout: 120_000 },
    );
    const { results } = JSON.parse(readFileSync(out, "utf8")) as {
      results: { scenario: string; allocatedKiB: number; gcEvents: number }[];
    };
    const of = (scenario: string) => results.find((r) => r.scenario === scenario);
    const small = of("small-miss");
    const page = of("attendees-miss");
    assert.ok(small && page, JSON.stringify(results));
    assert.ok(small.allocatedKiB > 0 && page.gcEvents > 0, JSON.stringify(results));
    // A page of 100 attendees allocates several times what `project { name }` does.
    assert.ok(page.allocatedKiB > 3 * small.allocatedKiB, JSON.stringify(results));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
