import autocannon from "autocannon";

/** What one round of load measured. */
export interface RoundResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses that were not 2xx, connection errors and timeouts: a valid round has none. */
  failures: number;
}

/** One round: `connections` keep-alive connections POST bodies from `body(n)` for `seconds`. */
export async function runRound(options: {
  url: string;
  seconds: number;
  connections: number;
  headers: Record<string, string>;
  /** The body of the n-th request of the whole scenario; `next()` hands out n. */
  body: (n: number) => string;
  next: () => number;
}): Promise<RoundResult> {
  const result = await autocannon({
    url: options.url,
    method: "POST",
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => ({ ...request, body: options.body(options.next()) }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
