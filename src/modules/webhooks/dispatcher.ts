import { randomUUID } from "node:crypto";
import type { Config } from "../../config.js";
import type { DatabaseHandle } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { webhookDeliveries, webhookDeliveryDuration, webhookQueueDepth } from "../../metrics/instruments.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService } from "../access/access.service.js";
import { type Permission, parsePermissions } from "../access/permissions.js";
import type { Mailer } from "../accounts/mailer.js";
import { mayReceive } from "./catalogue.js";
import type { ObjectRenderer } from "./render.js";
import { send } from "./sender.js";
import { signatureHeader } from "./signing.js";
import { type DeliveryRow, type EndpointRow, webhooksRepository as repo } from "./webhooks.repository.js";

/** How many requests one process sends at once, in all and to one endpoint. */
const maxInFlight = 32;
const maxInFlightPerEndpoint = 4;
/** An endpoint failing this long without one success is disabled and its developer emailed. */
const disableAfterMs = 3 * 24 * 60 * 60 * 1000;
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
 * with a random token, `FOR UPDATE SKIP LOCKED` on PostgreSQL), sends them outside any transaction,
 * then records each result only if the lease is still this round's. A lease outlives the request
 * timeout by a wide margin, so no other process takes a delivery over while it is being sent; a
 * process killed mid-send leaves a lease that expires, and another process (or the restarted one)
 * sends the delivery again with the same `webhook-id`.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Map<string, number>();
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

  /** Looks for due deliveries now. */
  wake(): void {
    if (this.stopped) return;
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
    const busy = [...this.inFlight].filter(([, n]) => n >= maxInFlightPerEndpoint).map(([app]) => app);
    const now = new Date();
    const token = randomUUID();
    const claimed = await repo.claim(this.deps.database.db, this.deps.database.engine, {
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      token,
      limit: free,
      busy,
    });
    const taken = new Map<string, number>();
    for (const delivery of claimed) {
      // A claim may hold more for one app than its share; the surplus waits for the lease to be
      // given back, which happens at once (released below) rather than after it expires.
      const n = (this.inFlight.get(delivery.app_id) ?? 0) + (taken.get(delivery.app_id) ?? 0);
      if (n >= maxInFlightPerEndpoint) {
        await this.release(delivery, token);
        continue;
      }
      taken.set(delivery.app_id, (taken.get(delivery.app_id) ?? 0) + 1);
      this.track(delivery, token);
    }
    if (claimed.length > 0) this.again = true;
  }

  private track(delivery: DeliveryRow, token: string): void {
    this.total++;
    this.inFlight.set(delivery.app_id, (this.inFlight.get(delivery.app_id) ?? 0) + 1);
    const work = this.deliver(delivery, token)
      .catch((error) =>
        this.deps.logger.error({ err: error, deliveryId: delivery.id }, "Webhook delivery failed"),
      )
      .finally(() => {
        this.total--;
        const left = (this.inFlight.get(delivery.app_id) ?? 1) - 1;
        if (left > 0) this.inFlight.set(delivery.app_id, left);
        else this.inFlight.delete(delivery.app_id);
        this.sending.delete(work);
        this.wake();
      });
    this.sending.add(work);
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

  private async deliver(delivery: DeliveryRow, token: string): Promise<void> {
    const { db } = this.deps.database;
    const endpoint = await repo.findEndpoint(db, delivery.app_id);
    if (!endpoint)
      return repo.endUnsent(db, delivery.id, token, "CANCELLED", "The app's webhook endpoint was removed");
    // Kept as FAILED, so "Redeliver all failed" sends the backlog once the endpoint is enabled again.
    if (endpoint.disabled_at)
      return repo.endUnsent(db, delivery.id, token, "FAILED", "The endpoint is disabled");
    const payload = delivery.payload ?? (await this.payloadOf(delivery, endpoint));
    if (payload === undefined) {
      webhookDeliveries.labels("cancelled").inc();
      return repo.endUnsent(
        db,
        delivery.id,
        token,
        "CANCELLED",
        "The app no longer has access to this project's events",
      );
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
    const nextAttemptAt = new Date(
      Date.now() + delaySeconds * 1000 * (0.8 + Math.random() * 0.4),
    ).toISOString();
    const recorded = await retrying(() =>
      repo.finishAttempt(
        db,
        delivery.id,
        token,
        {
          status,
          payload,
          response_status: outcome.status ?? null,
          last_error: outcome.error ?? (ok ? null : `HTTP ${outcome.status}`),
          delivered_at: ok ? nowIso() : null,
          next_attempt_at: ok || finalFailure ? delivery.next_attempt_at : nextAttemptAt,
        },
        {
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
      ),
    );
    if (!recorded) {
      this.deps.logger.warn({ deliveryId: delivery.id }, "Webhook lease lost before its result was recorded");
      return;
    }
    await this.trackEndpointHealth(endpoint, ok);
  }

  /** The body of a delivery: its object rendered as the app sees it now, or undefined without access. */
  private async payloadOf(delivery: DeliveryRow, endpoint: EndpointRow): Promise<string | undefined> {
    const { db } = this.deps.database;
    const app = await repo.findApp(db, delivery.app_id);
    if (!app) return undefined;
    const actor = {
      kind: "app" as const,
      appId: app.id,
      homeProjectId: app.project_id,
      permissions: parsePermissions(app.permissions),
      appName: app.name,
    };
    let object: unknown;
    if (delivery.object_typename === "AppLink") {
      const link = await repo.findLink(db, delivery.object_id);
      if (!link || link.app_id !== app.id) return undefined;
      object = {
        projectId: link.project_id,
        permissions: parsePermissions(link.permissions),
        authorizedAt: link.authorized_at,
        revokedAt: link.revoked_at,
      };
    } else {
      // Checked again at send time: a link revoked or narrowed after the commit stops the event.
      const access = await this.deps.access.resolve(actor, delivery.project_id);
      if (!access || !mayReceive(delivery.event_type, access.permissions as ReadonlySet<Permission>))
        return undefined;
      const fragments = JSON.parse(endpoint.fragments) as Record<string, string>;
      const rendered = await this.deps.renderer.render(
        actor,
        delivery.object_typename,
        delivery.object_id,
        fragments[delivery.event_type],
      );
      object = rendered.ok ? rendered.object : { error: rendered.error };
    }
    const data: Record<string, unknown> = { projectId: delivery.project_id, object };
    if (delivery.changed) data.changed = JSON.parse(delivery.changed);
    return JSON.stringify({ type: delivery.event_type, timestamp: delivery.created_at, data });
  }

  /** Remembers when an endpoint started failing; disables it (and tells its developer) after 3 days. */
  private async trackEndpointHealth(endpoint: EndpointRow, ok: boolean): Promise<void> {
    const { db } = this.deps.database;
    if (ok) {
      if (endpoint.failing_since) await repo.updateEndpoint(db, endpoint.app_id, { failing_since: null });
      return;
    }
    if (!endpoint.failing_since) {
      await repo.updateEndpoint(db, endpoint.app_id, { failing_since: nowIso() });
      return;
    }
    if (Date.now() - Date.parse(endpoint.failing_since) < disableAfterMs) return;
    const disabled = await db
      .updateTable("webhook_endpoints")
      .set({ disabled_at: nowIso() })
      .where("app_id", "=", endpoint.app_id)
      .where("disabled_at", "is", null)
      .executeTakeFirst();
    // Only the process that disabled it sends the email.
    if (Number(disabled.numUpdatedRows) === 0) return;
    const developer = await repo.developerEmails(db, endpoint.app_id);
    const link = `${this.deps.config.baseUrl}/apps/${endpoint.app_id}/webhooks`;
    for (const to of developer.emails) {
      await this.deps.mailer
        .send({
          to,
          subject: `Webhooks of ${developer.name} were disabled`,
          text: `Every delivery to ${endpoint.url} has failed since ${endpoint.failing_since}, so Eventgraph stopped sending to it. Nothing was lost: fix the endpoint, save it again on the app's Webhooks tab and redeliver the failed events.\n\n${link}`,
          link,
        })
        .catch((error) => this.deps.logger.error({ err: error }, "Could not email the developer"));
    }
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
