import { randomUUID } from "node:crypto";
import type { Config } from "../../config.js";
import type { DatabaseHandle } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { webhookDeliveries, webhookDeliveryDuration, webhookQueueDepth } from "../../metrics/instruments.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService } from "../access/access.service.js";
import type { Mailer } from "../accounts/mailer.js";
import { claimDeliveries, pendingApps } from "./claim.repository.js";
import { preparePayloads } from "./payload.js";
import type { ObjectRenderer } from "./render.js";
import { type Outcome, ResultWriter } from "./results.js";
import { send } from "./sender.js";
import { signatureHeader } from "./signing.js";
import { type DeliveryRow, type EndpointRow, webhooksRepository as repo } from "./webhooks.repository.js";

/** How often an idle dispatcher looks for work nobody told it about. */
const idlePollMs = 5_000;
/**
 * How soon a dispatcher looks again when a due delivery waits behind an earlier one of its object
 * that another process is sending (that process's end does not wake this one).
 */
const heldPollMs = 250;
/** The delivery log keeps 30 days. */
const retentionMs = 30 * 24 * 60 * 60 * 1000;

export interface DispatcherDeps {
  database: DatabaseHandle;
  config: Config;
  logger: Logger;
  access: AccessService;
  mailer: Mailer;
  renderer: ObjectRenderer;
}

/**
 * Sends the outbox's deliveries. Each round looks at every app with pending deliveries and, for
 * each whose endpoint has free slots (`WEBHOOK_MAX_IN_FLIGHT` requests at once per process),
 * claims as many as it has room for in one statement (a lease with a random token; `FOR UPDATE
 * SKIP LOCKED` on PostgreSQL): the heads of different objects, each object's events one at a time
 * in commit order (claim.repository.ts). A claim's bodies are rendered together (payload.ts), then
 * each delivery is sent at once, outside any transaction, and its result recorded only if the lease
 * is still its own (results.ts: results answered together share a transaction and a few
 * statements). An app's slots are its own: a slow or failing endpoint
 * fills only its own slots, and another app's deliveries are claimed and sent beside it.
 * A lease outlives the request timeout by a wide margin, so no other process takes a delivery over
 * while it is being sent; a process killed mid-send leaves a lease that expires, and another
 * process (or the restarted one) sends the delivery again with the same `webhook-id`.
 */
export class WebhookDispatcher {
  /** Requests in flight per app (its one endpoint). */
  private readonly inFlight = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly leaseMs: number;
  /** Free slots of an endpoint at which its answers wake a claim (results written wake one too). */
  private readonly refillAt: number;
  /** When the next pending delivery falls due, as read after the last round that claimed nothing. */
  private nextDueAt: number | undefined;
  private readonly sending = new Set<Promise<unknown>>();
  private readonly results: ResultWriter;
  private lastPurge = 0;
  private lastCount = 0;

  constructor(private readonly deps: DispatcherDeps) {
    // The send is bounded by the timeout; the margin covers the address lookup, rendering and the
    // retried bookkeeping. Short enough that a killed process's deliveries go out within a minute.
    this.leaseMs = deps.config.webhooks.timeoutMs * 2 + 10_000;
    this.refillAt = Math.max(1, Math.floor(deps.config.webhooks.maxInFlight / 4));
    // A stored result may free an object's next event: look for it.
    this.results = new ResultWriter(deps, () => this.wake());
  }

  /** Starts polling; `wake` makes it look at once (after a local write queued deliveries). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /**
   * Looks for due deliveries now. `apps` are those a local write just queued for: when every one
   * of their endpoints has all its slots taken here, nothing of theirs is claimable, and the end of
   * a request looks again, so the claim is skipped (in a burst, every write's commit would
   * otherwise cost an empty claim).
   */
  wake(apps?: readonly string[]): void {
    if (this.stopped) return;
    if (apps && apps.length > 0 && apps.every((app) => this.room(app) <= 0)) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.round();
  }

  /** Stops claiming and waits for the requests in flight and their results. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.sending]);
    await this.results.flushed();
  }

  private room(appId: string): number {
    return this.deps.config.webhooks.maxInFlight - (this.inFlight.get(appId) ?? 0);
  }

  // This process's writes that queued deliveries wake the dispatcher (WebhooksService.onQueued), and
  // so do stored results; a timer covers the next due retry, and an idle poll the deliveries queued
  // by other processes (the CLI, other server processes) and the leases of killed processes.
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const untilDue = this.nextDueAt === undefined ? idlePollMs : this.nextDueAt - Date.now();
    // Due but not claimed: held by an earlier event of its object, or its endpoint's slots are full.
    // Ours end with a wake; another process's do not, so a short poll finds when they are done.
    const delay = untilDue > 0 ? Math.min(idlePollMs, untilDue) : heldPollMs;
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    this.running = true;
    let claimed = false;
    try {
      do {
        this.again = false;
        if (await this.claimAndSend()) claimed = true;
      } while (this.again && !this.stopped);
      // Requests in flight wake the dispatcher when they end: the due date matters only when idle.
      if (claimed) this.nextDueAt = undefined;
      else {
        const due = await repo.nextDue(this.deps.database.db);
        this.nextDueAt = due === undefined ? undefined : Date.parse(due);
      }
      if (Date.now() - this.lastCount > 5_000) {
        this.lastCount = Date.now();
        webhookQueueDepth.set(await repo.pendingCount(this.deps.database.db));
      }
      if (Date.now() - this.lastPurge > 60 * 60 * 1000) {
        this.lastPurge = Date.now();
        await repo.purgeBefore(this.deps.database.db, new Date(Date.now() - retentionMs).toISOString());
      }
    } catch (error) {
      // The database may be down for a while: the next poll tries again.
      this.deps.logger.warn({ err: error }, "Webhook dispatcher could not claim deliveries");
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /** One claim per app with free slots; answers whether anything was claimed. */
  private async claimAndSend(): Promise<boolean> {
    let claimed = false;
    for (const appId of await pendingApps(this.deps.database.db)) {
      if (this.stopped) break;
      const room = this.room(appId);
      if (room <= 0) continue;
      const now = new Date();
      const token = randomUUID();
      const rows = await claimDeliveries(this.deps.database.db, this.deps.database.engine, {
        appId,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
        token,
        room,
      });
      if (rows.length === 0) continue;
      claimed = true;
      // Read once for the claim, just before the sends: a removal or disabling since stops them.
      const endpoint = await repo.findEndpoint(this.deps.database.db, appId);
      this.track(rows, token, endpoint);
    }
    return claimed;
  }

  /**
   * Sends one claim's deliveries: their bodies prepared together, then each request on its own,
   * each freeing its slot when its answer is in. A claim whose bodies cannot be prepared (the
   * database failing) keeps its leases, and its deliveries go again when they run out.
   */
  private track(rows: DeliveryRow[], token: string, endpoint: EndpointRow | undefined): void {
    const appId = rows[0]?.app_id ?? "";
    this.inFlight.set(appId, (this.inFlight.get(appId) ?? 0) + rows.length);
    const release = () => {
      const left = (this.inFlight.get(appId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(appId, left);
      else this.inFlight.delete(appId);
      // A quarter of the slots free: claim for them now rather than after the results' commit, so
      // a burst's next requests go out while the last answers are written (the claim still holds
      // back an object whose previous event has not been recorded: its lease is still on).
      if (this.room(appId) === this.refillAt) this.wake([appId]);
    };
    const failed = (error: unknown, deliveryId: string) =>
      // Its lease runs out and it is tried again then; other objects do not wait for it.
      this.deps.logger.error({ err: error, deliveryId }, "Webhook delivery failed");
    const work = this.prepare(rows, endpoint)
      .then(
        (payloads) =>
          Promise.all(
            rows.map((row) =>
              this.attempt(row, token, { endpoint, payload: payloads.get(row.id) })
                .then((outcome) => this.results.add(outcome))
                .catch((error) => failed(error, row.id))
                .finally(release),
            ),
          ),
        (error) => {
          failed(error, rows[0]?.id ?? "");
          rows.forEach(release);
        },
      )
      .finally(() => this.sending.delete(work));
    this.sending.add(work);
  }

  /**
   * The claim's bodies, by delivery id (undefined when the app may no longer receive the event):
   * stored at a first attempt, or rendered now as the app (payload.ts). Without a usable endpoint
   * nothing is sent, so nothing is rendered.
   */
  private async prepare(
    rows: DeliveryRow[],
    endpoint: EndpointRow | undefined,
  ): Promise<Map<string, string | undefined>> {
    if (!endpoint || endpoint.disabled_at)
      return new Map(rows.map((row) => [row.id, row.payload ?? undefined]));
    return preparePayloads(this.deps, rows, endpoint);
  }

  /** One attempt of one delivery; resolves once the request has its answer, with the result to record. */
  private async attempt(
    delivery: DeliveryRow,
    token: string,
    { endpoint, payload }: Prepared,
  ): Promise<Outcome> {
    const unsent = (status: "CANCELLED" | "FAILED", reason: string): Outcome => ({
      result: { deliveryId: delivery.id, token, patch: { status, last_error: reason } },
    });
    if (!endpoint) return unsent("CANCELLED", "The app's webhook endpoint was removed");
    // Kept as FAILED, so "Redeliver all failed" sends the backlog once the endpoint is enabled again.
    if (endpoint.disabled_at) return unsent("FAILED", "The endpoint is disabled");
    if (payload === undefined) {
      webhookDeliveries.labels("cancelled").inc();
      return unsent("CANCELLED", "The app no longer has access to this project's events");
    }
    const url = new URL(endpoint.url);
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? "") > nowIso()) {
      secrets.push(endpoint.previous_secret);
    }
    const headers = {
      "content-type": "application/json",
      "user-agent": "Eventgraph-Webhooks/1",
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, delivery.id, timestamp, payload),
    };
    const startedAt = nowIso();
    const outcome = await send(url, headers, payload, {
      timeoutMs: this.deps.config.webhooks.timeoutMs,
      allowPrivateNetworks: this.deps.config.webhooks.allowPrivateNetworks,
      connections: this.deps.config.webhooks.maxInFlight,
    });
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const delays = this.deps.config.webhooks.retryDelaysSeconds;
    const finalFailure = !ok && delivery.attempts > delays.length;
    const status = ok ? "DELIVERED" : finalFailure ? "FAILED" : "PENDING";
    webhookDeliveries.labels(ok ? "delivered" : finalFailure ? "failed" : "retry").inc();
    webhookDeliveryDuration.observe(outcome.durationMs / 1000);
    const delaySeconds = delays[delivery.attempts - 1] ?? 0;
    // ±20 % jitter spreads the retries of many deliveries that failed together.
    const deliveredAt = ok ? nowIso() : null;
    const nextAttemptAt = new Date(
      Date.now() + delaySeconds * 1000 * (0.8 + Math.random() * 0.4),
    ).toISOString();
    return {
      result: {
        deliveryId: delivery.id,
        token,
        patch: {
          status,
          payload,
          response_status: outcome.status ?? null,
          last_error: outcome.error ?? (ok ? null : `HTTP ${outcome.status}`),
          delivered_at: deliveredAt,
          next_attempt_at: ok || finalFailure ? delivery.next_attempt_at : nextAttemptAt,
        },
        attempt: {
          id: randomUUID(),
          delivery_id: delivery.id,
          attempt: delivery.attempts,
          url: endpoint.url,
          request_headers: JSON.stringify(headers),
          started_at: startedAt,
          duration_ms: outcome.durationMs,
          response_status: outcome.status ?? null,
          response_body: outcome.body ?? null,
          error: outcome.error ?? null,
        },
      },
      health: { endpoint, ok },
    };
  }
}

/** What an attempt needs, read and rendered just before it. */
interface Prepared {
  endpoint: EndpointRow | undefined;
  payload: string | undefined;
}
