import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for Stripe, speaking the wire protocol the `stripe` package uses: form-encoded
 * POSTs with bracketed keys (`line_items[0][price_data][unit_amount]=24900`), `Authorization:
 * Bearer <secret key>`, `Idempotency-Key` honoured as Stripe does (the same key answers the first
 * answer again), JSON objects shaped as Stripe's. Its hosted page (`/pay/<session>`) is a plain
 * HTML form a browser test clicks; paying there sends `checkout.session.completed` to the app
 * signed as Stripe signs (`Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.body">`), then returns
 * the buyer to the session's success_url. The app is pointed at it with STRIPE_API_BASE only.
 */
export interface StripeServer {
  url: string;
  secretKey: string;
  webhookSecret: string;
  /** Sends notifications to the app at `appUrl` (the project is taken from the session's metadata). */
  pointAt(appUrl: string): void;
  sessions: Map<string, Session>;
  refunds: Refund[];
  /** Requests the API part got (method, path, idempotency key), in order. */
  calls: { method: string; path: string; idempotencyKey: string | undefined }[];
  /** Answers the next `count` API calls with `status` (a 500 or a hang to test the app's retries). */
  failNext(count: number, status: number): void;
  /** Completes a session as a buyer paying would, and delivers its notification; returns the event. */
  pay(sessionId: string): Promise<{ event: StripeEvent; status: number }>;
  /** A `checkout.session.completed` event for a session (paid), without sending it. */
  completedEvent(sessionId: string): StripeEvent;
  /** Sends `body` to the app's endpoint of `projectId` with `signature` (default: signed now, correctly). */
  deliver(
    projectId: string,
    body: string,
    signature?: string | null,
  ): Promise<{ status: number; json: unknown }>;
  /** Stripe's signature header of `body` at `timestamp` (seconds) under `secret`. */
  sign(body: string, timestamp?: number, secret?: string): string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type Session = Json & {
  id: string;
  metadata: Record<string, string>;
  amount_total: number;
  currency: string;
};
type Refund = Json & { id: string; amount: number; payment_intent: string };
type StripeEvent = Json & { id: string; type: string; data: { object: Json } };

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

/** `a[b][0][c]=1` form fields as nested objects and arrays, as Stripe reads them. */
function parseForm(text: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, "").split("[");
    let node: Record<string, unknown> = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else {
        node[part] ??= /^\d+$/.test(path[i + 1] ?? "") ? [] : {};
        node = node[part] as Record<string, unknown>;
      }
    });
  }
  return root;
}

const stripeError = (status: number, message: string, type = "invalid_request_error") => ({
  status,
  body: { error: { type, message } },
});

/** Starts the stand-in on a free loopback port. */
export async function startStripeServer(): Promise<StripeServer> {
  const sessions = new Map<string, Session>();
  const refunds: Refund[] = [];
  const calls: StripeServer["calls"] = [];
  const remembered = new Map<string, { status: number; body: unknown }>();
  let failures = { count: 0, status: 500 };
  let base = "";
  let appUrl = "";

  function api(method: string, path: string, form: Json): { status: number; body: unknown } {
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const items = (form.line_items ?? []) as Json[];
      const total = items.reduce((sum, item) => {
        const price = item.price_data as Json;
        return sum + Number(price.unit_amount) * Number(item.quantity);
      }, 0);
      const session: Session = {
        id: id("cs"),
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_total: total,
        currency: String((items[0]?.price_data as Json | undefined)?.currency ?? "eur"),
        client_reference_id: form.client_reference_id ?? null,
        customer_email: form.customer_email ?? null,
        metadata: (form.metadata ?? {}) as Record<string, string>,
        payment_intent: null,
        success_url: form.success_url,
        cancel_url: form.cancel_url,
        expires_at: Number(form.expires_at),
        line_items_sent: items,
        url: "",
      };
      session.url = `${base}/pay/${session.id}`;
      const now = Math.floor(Date.now() / 1000);
      const expiresAt = Number(form.expires_at);
      if (expiresAt < now + 1800 || expiresAt > now + 86400) {
        return stripeError(400, "expires_at must be between 30 minutes and 24 hours from now");
      }
      sessions.set(session.id, session);
      return { status: 200, body: session };
    }
    const sessionPath = /^\/v1\/checkout\/sessions\/([\w]+)$/.exec(path);
    if (method === "GET" && sessionPath) {
      const session = sessions.get(sessionPath[1] ?? "");
      return session ? { status: 200, body: session } : stripeError(404, "No such checkout.session");
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = String(form.payment_intent ?? "");
      const paid = [...sessions.values()].find((s) => s.payment_intent === intent);
      if (!paid) return stripeError(400, `No such payment_intent: '${intent}'`);
      const already = refunds
        .filter((r) => r.payment_intent === intent)
        .reduce((sum, r) => sum + r.amount, 0);
      const amount = form.amount === undefined ? paid.amount_total - already : Number(form.amount);
      if (amount + already > paid.amount_total) {
        return stripeError(400, `Refund amount (${amount}) is greater than unrefunded amount on charge`);
      }
      const refund: Refund = {
        id: id("re"),
        object: "refund",
        amount,
        currency: paid.currency,
        payment_intent: intent,
        status: "succeeded",
      };
      refunds.push(refund);
      return { status: 200, body: refund };
    }
    return stripeError(404, `Unrecognized request URL (${method}: ${path})`);
  }

  function completedEvent(sessionId: string): StripeEvent {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.status === "open") {
      Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: id("pi") });
    }
    return {
      id: id("evt"),
      object: "event",
      api_version: "2025-01-01",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type: "checkout.session.completed",
      data: { object: { ...session } },
    };
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const url = new URL(request.url ?? "/", base);
      const send = (status: number, payload: unknown, type = "application/json") => {
        response.writeHead(status, { "content-type": type, "request-id": id("req") });
        response.end(typeof payload === "string" ? payload : JSON.stringify(payload));
      };
      const page = /^\/pay\/([\w]+)$/.exec(url.pathname);
      if (page) {
        const session = sessions.get(page[1] ?? "");
        if (!session) return send(404, "No such session", "text/plain");
        if (request.method === "GET") {
          const amount = (session.amount_total / 100).toFixed(2);
          return send(
            200,
            `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Stripe Checkout (local)</title></head><body>
<h1>Pay ${amount} ${session.currency.toUpperCase()}</h1>
<form method="post" action="/pay/${session.id}"><button type="submit">Pay</button></form>
<p><a href="${String(session.cancel_url)}">Back</a></p></body></html>`,
            "text/html; charset=utf-8",
          );
        }
        const event = completedEvent(session.id);
        await stand.deliver(session.metadata.eventgraph_project ?? "", JSON.stringify(event));
        response.writeHead(303, { location: String(session.success_url) });
        return response.end();
      }
      const key = request.headers["idempotency-key"];
      const idempotencyKey = typeof key === "string" ? key : undefined;
      calls.push({ method: request.method ?? "", path: url.pathname, idempotencyKey });
      if (request.headers.authorization !== `Bearer ${stand.secretKey}`) {
        return send(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      }
      if (failures.count > 0) {
        failures.count--;
        return send(failures.status, { error: { type: "api_error", message: "Something went wrong" } });
      }
      const rememberedAnswer = idempotencyKey ? remembered.get(idempotencyKey) : undefined;
      if (rememberedAnswer) return send(rememberedAnswer.status, rememberedAnswer.body);
      const answer = api(request.method ?? "GET", url.pathname, parseForm(body));
      if (idempotencyKey && request.method === "POST") remembered.set(idempotencyKey, answer);
      return send(answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  const stand: StripeServer = {
    url: base,
    secretKey: `sk_test_${randomBytes(16).toString("hex")}`,
    webhookSecret: `whsec_${randomBytes(24).toString("base64").replace(/[+/=]/g, "x")}`,
    pointAt(url) {
      appUrl = url;
    },
    sessions,
    refunds,
    calls,
    failNext(count, status) {
      failures = { count, status };
    },
    completedEvent,
    async pay(sessionId) {
      const session = sessions.get(sessionId);
      const event = completedEvent(sessionId);
      const { status } = await stand.deliver(
        session?.metadata.eventgraph_project ?? "",
        JSON.stringify(event),
      );
      return { event, status };
    },
    sign(body, timestamp = Math.floor(Date.now() / 1000), secret = stand.webhookSecret) {
      const v1 = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
      return `t=${timestamp},v1=${v1}`;
    },
    async deliver(projectId, body, signature) {
      const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
      const header = signature === undefined ? stand.sign(body) : signature;
      if (header !== null) headers["stripe-signature"] = header;
      const response = await fetch(`${appUrl}/payments/stripe/${projectId}`, {
        method: "POST",
        headers,
        body,
      });
      return { status: response.status, json: await response.json().catch(() => null) };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return stand;
}
