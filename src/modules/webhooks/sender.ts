import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
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

/**
 * POSTs `body` to `url` with `headers`: connects only to the address checked by the SSRF rules,
 * follows no redirect (a 3xx is an answer like any non-2xx), keeps 4 KB of the answer and gives up
 * after `timeoutMs`. Never throws: every failure is an outcome for the delivery log.
 */
export async function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivateNetworks: boolean },
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
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
        lookup: pinnedLookup,
        // A pooled connection could outlive the address check; each delivery connects afresh.
        agent: false,
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
      finish({ status: undefined, body: undefined, error: `No answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on("error", (error) => finish({ status: undefined, body: undefined, error: error.message }));
    request.end(body);
  });
}
