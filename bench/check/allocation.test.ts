import assert from "node:assert/strict";
import { test } from "node:test";
import { benchOutput } from "./bench-output.js";

// The allocation bench samples a real server's heap through its inspector and reads its GC trace:
// if either were read wrongly, the counts would be zero or the same for every scenario, or the
// sites unnamed.
test("npm run bench -- --allocation counts what each request allocates, bigger pages more", async () => {
  const { results } = await benchOutput<{
    results: {
      scenario: string;
      allocatedKiB: number;
      gcEvents: number;
      sites: { site: string; kib: number }[];
    }[];
  }>(
    "allocation",
    ["--datasets=sqlite1", "--scenarios=small-miss,attendees-miss", "--requests=300", "--warmup=100"],
    120_000,
  );
  const of = (scenario: string) => results.find((r) => r.scenario === scenario);
  const small = of("small-miss");
  const page = of("attendees-miss");
  assert.ok(small && page, JSON.stringify(results));
  assert.ok(small.allocatedKiB > 0 && page.gcEvents > 0, JSON.stringify(results));
  // A page of 100 attendees allocates several times what `project { name }` does.
  assert.ok(page.allocatedKiB > 3 * small.allocatedKiB, JSON.stringify(results));
  // The sites name graphql-jit's compiled code for the page, among the largest.
  assert.ok(
    page.sites.some((s) => s.site.includes("AttendeeConnection") && s.kib > 10),
    JSON.stringify(page.sites),
  );
});
