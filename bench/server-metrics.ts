import type { ChildServer } from "./processes.js";

/** The metrics page of an Eventgraph the bench started with `METRICS_TOKEN=token`, as text. */
async function scrape(server: ChildServer, token: string): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

/** The value of one sample of a metrics page, named with its labels as written (NaN if absent). */
function sample(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return Number(new RegExp(`^${escaped} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

/** The response cache's hit and miss counters so far. */
export async function cacheCounters(
  server: ChildServer,
  token: string,
): Promise<{ hits: number; misses: number }> {
  const text = await scrape(server, token);
  return {
    hits: sample(text, "eventgraph_response_cache_hits_total"),
    misses: sample(text, "eventgraph_response_cache_misses_total"),
  };
}

/** The garbage collector's work so far: time in every kind of collection, and full collections. */
export interface GcCounters {
  seconds: number;
  full: number;
}

const gcKinds = ["minor", "major", "incremental", "weakcb"];

/**
 * From the process's own `nodejs_gc_duration_seconds` (prom-client, fed by V8's GC notifications).
 * Full (mark-compact) collections tell a process that promotes its requests' objects from one that
 * does not: the same build has been both, by chance, until round fourteen (src/v8-flags.ts).
 */
export async function gcCounters(server: ChildServer, token: string): Promise<GcCounters> {
  const text = await scrape(server, token);
  const of = (suffix: string, kind: string) =>
    sample(text, `eventgraph_nodejs_gc_duration_seconds_${suffix}{kind="${kind}"}`) || 0;
  return {
    seconds: gcKinds.reduce((total, kind) => total + of("sum", kind), 0),
    full: of("count", "major"),
  };
}
