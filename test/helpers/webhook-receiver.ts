import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver got. */
interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** The parsed body (`{type, timestamp, data}`). */
  json: {
    type: string;
    timestamp: string;
    data: { projectId: string; object: Record<string, unknown>; changed?: string[] };
  };
  receivedAt: number;
}

/** A real HTTP receiver on a free loopback port; `answer` decides each response (200 by default). */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status to answer request number `n` (1-based); replaceable during a test. */
  answer: (n: number, request: ReceivedWebhook) => number | Promise<number>;
  /** Resolves once `count` requests arrived (matching `filter`), or rejects after `timeoutMs`. */
  waitFor(
    count: number,
    options?: { timeoutMs?: number; filter?: (r: ReceivedWebhook) => boolean },
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Starts a receiver. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const entry: ReceivedWebhook = {
        headers: request.headers as Record<string, string>,
        body,
        json: JSON.parse(body),
        receivedAt: Date.now(),
      };
      received.push(entry);
      for (const wake of waiters) wake();
      const status = await receiver.answer(received.length, entry);
      response.writeHead(status, { "content-type": "text/plain" }).end(`answer ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // A test that fails before its `close()` must not keep the test process alive: the run would
  // hang instead of reporting the failure.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer: () => 200,
    waitFor(count, options = {}) {
      const matching = () => received.filter(options.filter ?? (() => true));
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matching().length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} webhooks, got ${matching().length}`));
        }, options.timeoutMs ?? 15_000);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
