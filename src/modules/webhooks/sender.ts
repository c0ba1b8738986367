import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { LRUCache } from "lru-cache";
import { resolvePublicAddress } from "./ssrf.js";

/** What one HTTP request of a delivery came to. */
export interface SendOutcome {
  /** Undefined when no answer came (connection error, timeout, refused address). */
  status: number | undefined;
  /** The first 4 KB of the answer's body. */
  body: string | undefined;
  error: string | undefined;
  durationMs: number;
}

const maxBodyBytes = 4096;
const idleConnectionMs = 4_000;

/**
 * POSTs `body` to `url` with `headers`: connects only to the address checked by the SSRF rules for
 * this request (a kept-alive connection only when it was opened to that same address), follows
 * no redirect (a 3xx is an answer like any non-2xx), keeps 4 KB of the answer and gives up after
 * `timeoutMs`. Never throws: every failure is an outcome for the delivery log.
 */
export async function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivateNetworks: boolean; connections: number },
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let pinned: { address: string; family: number };
  try {
    pinned = await resolvePublicAddress(url.hostname, options.allowPrivateNetworks);
  } catch (error) {
    return { status: undefined, body: undefined, error: (error as Error).message, durationMs: elapsed() };
  }
  const pinnedLookup: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const agent = poolFor(url, pinned.address, options.connections);
  const deadline = started + options.timeoutMs;
  const first = await post(url, headers, body, pinnedLookup, agent, options.timeoutMs, options.timeoutMs);
  // The receiver closed the idle kept-alive connection as this request went out: nothing was
  // answered, so it goes once more on a new connection (to the same checked address) rather than
  // counting as a failure and waiting for a retry behind later events.
  const outcome =
    first.staleConnection && performance.now() < deadline
      ? await post(url, headers, body, pinnedLookup, false, deadline - performance.now(), options.timeoutMs)
      : first;
  return { status: outcome.status, body: outcome.body, error: outcome.error, durationMs: elapsed() };
}

/**
 * Kept-alive connections, one pool per endpoint origin and checked address. A request takes a
 * pooled connection only after its own address check answered that same address, so every request
 * still goes to an address checked for it, and a DNS answer that changes gets a pool of its own
 * (after its check). An idle connection closes after 4 s, before Node's default 5 s server
 * keep-alive would close it under a request. A pool opens as many connections as the dispatcher
 * sends requests at once to one endpoint (`connections`, WEBHOOK_MAX_IN_FLIGHT).
 */
const pools = new LRUCache<string, http.Agent>({ max: 500 });

function poolFor(url: URL, address: string, connections: number): http.Agent {
  const key = `${url.protocol}//${url.host} ${address}`;
  let agent = pools.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: connections, timeout: idleConnectionMs };
    agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    pools.set(key, agent);
  }
  return agent;
}

/** One POST on a pooled connection, given up after `timeoutMs` (reported as `totalMs`); never throws. */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  lookup: LookupFunction,
  agent: http.Agent | false,
  timeoutMs: number,
  totalMs: number,
): Promise<Omit<SendOutcome, "durationMs"> & { staleConnection?: boolean }> {
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, "durationMs"> & { staleConnection?: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
        lookup,
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept >= maxBodyBytes) return;
          chunks.push(chunk.subarray(0, maxBodyBytes - kept));
          kept += Math.min(chunk.length, maxBodyBytes - kept);
          // Enough for the log: the rest is not read, the connection is dropped.
          if (kept >= maxBodyBytes) response.destroy();
        });
        const done = () =>
          finish({
            status: response.statusCode,
            body: Buffer.concat(chunks).toString("utf8"),
            error: undefined,
          });
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: undefined, body: undefined, error: `No answer within ${totalMs} ms` });
    }, timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) =>
      finish({
        status: undefined,
        body: undefined,
        error: error.message,
        staleConnection: request.reusedSocket && error.code === "ECONNRESET",
      }),
    );
    request.end(body);
  });
}
