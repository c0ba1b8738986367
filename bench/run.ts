import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * `npm run bench [-- flags]`: a dispatcher. A mode flag runs that drill in its own process with the
 * remaining flags; without one, the main suite (bench/suite.ts: Eventgraph, the limit and the peers).
 *   --event-loop   the event-loop drill (bench/event-loop.ts)
 *   --soak         the soak: steady mixed reads and writes for 30 minutes (bench/soak.ts)
 *   --webhooks     webhook delivery: 1,000 check-ins with a local receiver subscribed (bench/webhooks.ts)
 *   --checkout     the event page's checkout: orders per second and p99, SQLite or PostgreSQL (bench/checkout.ts)
 *   --subscriptions  1,000 open subscription streams: memory per stream, commit-to-subscriber latency (bench/subscriptions.ts)
 *   --allocation   bytes allocated and promoted per request, from V8's GC trace (bench/allocation.ts)
 *   --instructions machine instructions per request, counted by valgrind (bench/instructions.ts)
 */
const modes: Record<string, string> = {
  "--event-loop": "event-loop.js",
  "--soak": "soak.js",
  "--webhooks": "webhooks.js",
  "--checkout": "checkout.js",
  "--subscriptions": "subscriptions.js",
  "--allocation": "allocation.js",
  "--instructions": "instructions.js",
};

const args = process.argv.slice(2);
const mode = args.find((arg) => arg in modes);
const script = join("dist", "bench", mode ? (modes[mode] as string) : "suite.js");
try {
  execFileSync(process.execPath, [script, ...args.filter((arg) => arg !== mode)], { stdio: "inherit" });
} catch (error) {
  process.exit((error as { status?: number }).status ?? 1);
}
