import { randomUUID } from "node:crypto";
import type { Config } from "../../config.js";
import type { DatabaseHandle } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { webhookDeliveries, webhookDeliveryDuration, webhookQueueDepth } from "../../metrics/instruments.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService } from "../access/access.service.js";
import type { Mailer } from "../accounts/mailer.js";
import { type ClaimedUnit, claimDeliveries } from "./claim.repository.js";
import { disableIfFailing } from "./endpoint-health.js";
import { queueKey } from "./outbox.js";
import { renderPayload } from "./payload.js";
import { mayStillReceive } from "./receiving.js";
import type { ObjectRenderer } from "./render.js";
import { send } from "./sender.js";
import { signatureHeader } from "./signing.js";
import {
  type AttemptResult,
  type DeliveryRow,
  type EndpointRow,
  webhooksRepository as repo,
} from "./webhooks.repository.js";

/** How many requests one process sends at once, in all and to one endpoint. */
const maxInFlight = 32;
const maxInFlightPerEndpoint = 4;
/**
 * The most first attempts of one app + project claimed together and sent one after another: one
 * claim per run instead of per delivery, and the next payload rendered while one is in flight.
 */
const runLength = 20;
/** How many deliveries of a run are read and rendered ahead of the one being sent. */
const prepareAhead = 3;
/** How often an idle dispatcher looks for work nobody told it about. */
const idlePollMs = 5_000;
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
 * Sends the outbox's deliveries. Each round claims due deliveries in a short transaction (a lease
 * with a random token, `FOR UPDATE SKIP LOCKED` on PostgreSQL): runs of one queue's first attempts
 * and single retries (claim.repository.ts). It sends them outside any transaction, a run's one
 * after another, then records each result only if the lease is still this round's. A lease outlives the request
 * timeout by a wide margin, so no other process takes a delivery over while it is being sent; a
 * process killed mid-send leaves a lease that expires, and another process (or the restarted one)
 * sends the delivery again with the same `webhook-id`.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, number>();
  /** The queues (queueKey) whose head a run of this process holds, with how many runs. */
  private readonly held = new Map<string, number>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly leaseMs: number;
  /** When the next pending delivery falls due, as read after the last round. */
  private nextDueAt: number | undefined;
  private readonly sending = new Set<Promise<void>>();
  private lastPurge = 0;
  private lastCount = 0;

  constructor(private readonly deps: DispatcherDeps) {
    // The send is bounded by the timeout; the margin covers the address lookup, rendering and the
    // retried bookkeeping. Short enough that a killed process's deliveries go out within a minute.
    this.leaseMs = deps.config.webhooks.timeoutMs * 2 + 10_000;
  }

  /** Starts polling; `wake` makes it look at once (after a local write queued deliveries). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /**
   * Looks for due deliveries now. `queues` (app + project keys, see queueKey) are what a local
   * write just queued: when a run of this process holds every one of them, nothing there is
   * claimable, and the run's end looks again, so the claim is skipped (in a burst, every check-in's
   * commit would otherwise cost an empty claim).
   */
  wake(queues?: readonly string[]): void {
    if (this.stopped) return;
    if (queues && queues.length > 0 && queues.every((queue) => this.held.has(queue))) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.round();
  }

  /** Stops claiming and waits for the requests in flight (their results are recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.sending]);
  }

  // This process's writes that queued deliveries wake the dispatcher (WebhooksService.onQueued); a
  // timer covers the next due retry, and an idle poll the deliveries queued by other processes (the
  // CLI, other server processes) and the leases of killed processes.
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const untilDue = this.nextDueAt === undefined ? idlePollMs : this.nextDueAt - Date.now();
    // Due but not claimed: it waits behind an earlier delivery being sent. When that one is ours,
    // its end wakes us; otherwise another process holds it, and a short poll finds when it is done.
    const delay = untilDue > 0 ? Math.min(idlePollMs, untilDue) : this.total > 0 ? idlePollMs : 250;
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        await this.claimAndSend();
      } while (this.again && !this.stopped);
      const due = await repo.nextDue(this.deps.database.db);
      this.nextDueAt = due === undefined ? undefined : Date.parse(due);
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

  private async claimAndSend(): Promise<void> {
    const free = maxInFlight - this.total;
    if (free <= 0) return;
    const room = new Map([...this.inFlight].map(([app, n]) => [app, maxInFlightPerEndpoint - n]));
    const now = new Date();
    const token = randomUUID();
    const units = await claimDeliveries(this.deps.database.db, this.deps.database.engine, {
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      token,
      limit: free,
      room,
      perEndpoint: maxInFlightPerEndpoint,
      runLength,
    });
    for (const unit of units) this.track(unit, token, now.getTime());
    if (units.length > 0) this.again = true;
  }

  // A run counts as one request in flight: its deliveries go one after another.
  private track(unit: ClaimedUnit, token: string, claimedAt: number): void {
    const first = unit[0];
    if (!first) return;
    const appId = first.app_id;
    const queue = queueKey(first.app_id, first.project_id);
    this.total++;
    this.inFlight.set(appId, (this.inFlight.get(appId) ?? 0) + 1);
    this.held.set(queue, (this.held.get(queue) ?? 0) + 1);
    const work = this.sendRun(unit, token, claimedAt)
      .catch((error) => this.deps.logger.error({ err: error }, "Webhook delivery failed"))
      .finally(() => {
        this.total--;
        decrement(this.inFlight, appId);
        decrement(this.held, queue);
        this.sending.delete(work);
        this.wake();
      });
    this.sending.add(work);
  }

  /**
   * Sends a unit's deliveries in order. The next one's payload is rendered while one is in flight,
   * and each result is recorded while the next is sent (results in order, one after another), so
   * neither is on the serial path. A send starts only while a timeout's worth of lease is left
   * after it (the lease must outlive every request, or another process could send it at the same
   * time); past that, or when the dispatcher stops, the rest is given back untouched.
   */
  private async sendRun(unit: ClaimedUnit, token: string, claimedAt: number): Promise<void> {
    // Up to `prepareAhead` deliveries are read and rendered while earlier ones are in flight.
    const prepared = new Map<number, Promise<Prepared>>();
    const prepareFrom = (from: number) => {
      for (let j = from; j < Math.min(unit.length, from + prepareAhead); j++) {
        const delivery = unit[j];
        if (prepared.has(j) || !delivery) continue;
        const preparing = this.prepare(delivery);
        preparing.catch(() => undefined); // awaited below; this only keeps an early failure from being unhandled
        prepared.set(j, preparing);
      }
    };
    // Results wait here while one transaction writes those before them: in a burst a run's results
    // share commits instead of each taking its own.
    const waiting: Outcome[] = [];
    let writing: Promise<void> | undefined;
    const write = async () => {
      while (waiting.length > 0) await this.record(waiting.splice(0), token);
    };
    try {
      for (const [i, delivery] of unit.entries()) {
        if (i > 0 && (this.stopped || Date.now() - claimedAt > this.deps.config.webhooks.timeoutMs)) {
          await Promise.allSettled(prepared.values());
          for (const rest of unit.slice(i)) await this.release(rest, token);
          return;
        }
        prepareFrom(i);
        const preparing = prepared.get(i) as Promise<Prepared>;
        prepared.delete(i);
        try {
          waiting.push(await this.attempt(delivery, await preparing));
          writing ??= write().finally(() => {
            writing = undefined;
          });
        } catch (error) {
          // Its lease runs out and it is tried again then; the later ones do not wait for it.
          this.deps.logger.error({ err: error, deliveryId: delivery.id }, "Webhook delivery failed");
        }
      }
    } finally {
      await writing;
      await write();
    }
  }

  /** Writes results in order; a result not written keeps its lease, and the delivery goes again after it. */
  private async record(outcomes: Outcome[], token: string): Promise<void> {
    let recorded: Set<string>;
    try {
      // The endpoint's health is what its latest answer says.
      const latest = outcomes.findLast((o) => o.health)?.health;
      const health = latest && { appId: latest.endpoint.app_id, ok: latest.ok, at: nowIso() };
      recorded = await retrying(() =>
        repo.finishAttempts(
          this.deps.database.db,
          token,
          outcomes.map((o) => o.result),
          health,
        ),
      );
    } catch (error) {
      this.deps.logger.error({ err: error }, "Webhook results not recorded");
      return;
    }
    for (const { result, health } of outcomes) {
      if (!recorded.has(result.deliveryId)) {
        this.deps.logger.warn(
          { deliveryId: result.deliveryId },
          "Webhook lease lost before its result was recorded",
        );
        continue;
      }
      if (health && !health.ok) await disableIfFailing(this.deps, health.endpoint);
    }
  }

  /** Gives a claimed delivery back untouched (its attempt number is restored). */
  private async release(delivery: DeliveryRow, token: string): Promise<void> {
    await this.deps.database.db
      .updateTable("webhook_deliveries")
      .set({ lease_token: null, locked_until: null, attempts: delivery.attempts - 1 })
      .where("id", "=", delivery.id)
      .where("lease_token", "=", token)
      .execute();
  }

  /**
   * A delivery's endpoint and body (stored at its first attempt, or rendered now as the app;
   * undefined when the app may no longer receive the event). Read shortly before the send, as before
   * runs: a removal or disabling since stops it.
   */
  private async prepare(delivery: DeliveryRow): Promise<Prepared> {
    const endpoint = await repo.findEndpoint(this.deps.database.db, delivery.app_id);
    if (!endpoint || endpoint.disabled_at) return { endpoint, payload: delivery.payload ?? undefined };
    // A stored body (a retry, a redelivery) was rendered under the access of its first attempt:
    // sent again only while the app may still receive the event.
    if (delivery.payload !== null) {
      const allowed = await mayStillReceive(this.deps.database.db, this.deps.access, delivery);
      return { endpoint, payload: allowed ? delivery.payload : undefined };
    }
    return { endpoint, payload: await renderPayload(this.deps, delivery, endpoint) };
  }

  /** One attempt of one delivery; resolves once the request has its answer, with the result to record. */
  private async attempt(delivery: DeliveryRow, { endpoint, payload }: Prepared): Promise<Outcome> {
    const unsent = (status: "CANCELLED" | "FAILED", reason: string): Outcome => ({
      result: { deliveryId: delivery.id, patch: { status, last_error: reason } },
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

/** Runs `work` again after transient database errors (a lost connection, a serialization failure). */
async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}

/** What an attempt needs, read and rendered ahead of it. */
interface Prepared {
  endpoint: EndpointRow | undefined;
  payload: string | undefined;
}

/** An attempt's result, and what it says of its endpoint's health when a request was sent. */
interface Outcome {
  result: AttemptResult;
  health?: { endpoint: EndpointRow; ok: boolean };
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
