import { z } from "zod";
import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import type { DeliveryStatus } from "../../db/schema.js";
import { afterCommit } from "../../db/transaction.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { globalId } from "../../graphql/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { dateTime, idText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import type { AppsService } from "../apps/apps.service.js";
import { eventCatalogue, eventTypeInfo } from "./catalogue.js";
import { pendingDelivery, recordDeliveries } from "./outbox.js";
import { mayStillReceive } from "./receiving.js";
import { generateSecret, secretLastFour } from "./signing.js";
import { BlockedAddressError, checkEndpointUrl } from "./ssrf.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  webhooksRepository as repo,
} from "./webhooks.repository.js";

/** An app's endpoint as shown after it was set up (the secret only as its last four characters). */
export interface WebhookEndpoint {
  appId: string;
  url: string;
  events: string[];
  /** Event type -> the selection of `data.object` the app chose. */
  fragments: Record<string, string>;
  secretLastFour: string;
  disabledAt: string | null;
  failingSince: string | null;
}

/** One delivery in the log. */
export interface Delivery {
  id: string;
  /** Order of recording: the delivery log's cursor. */
  seq: number;
  appId: string;
  type: string;
  projectId: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  payload: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

/** One HTTP request of a delivery. */
export interface DeliveryAttempt {
  attempt: number;
  url: string;
  requestHeaders: Record<string, string>;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

export const deliveryStatuses = ["PENDING", "DELIVERED", "FAILED", "CANCELLED"] as const;

/** How long a rotated-out secret keeps signing beside the new one. */
const previousSecretLifetimeMs = 24 * 60 * 60 * 1000;

const configureInput = z.object({
  appId: idText,
  url: z.string().trim().min(1, "must not be empty"),
  events: z
    .array(z.string().trim())
    .min(1, "must name at least one event type")
    .max(eventCatalogue.length)
    .superRefine((names, ctx) => {
      const unknown = names.filter((name) => !eventTypeInfo(name));
      if (unknown.length > 0)
        ctx.addIssue({ code: "custom", message: `unknown event types: ${unknown.join(", ")}` });
    }),
  fragments: z.record(z.string(), z.string().max(2000)).optional(),
  rotateSecret: z.boolean().optional(),
});

/**
 * Checks a selection for a GraphQL type in the app's pinned API version; set by the app once the
 * schemas exist (ObjectRenderer.check).
 */
type SelectionCheck = (apiVersion: string, typename: string, selection: string) => string | undefined;

const typenameOf: Record<string, string> = {
  project: "Project",
  session: "Session",
  speaker: "Speaker",
  track: "Track",
  room: "Room",
  ticket_type: "TicketType",
  attendee: "Attendee",
  checkin: "Attendee",
};

/** The GraphQL type an event's `data.object` has (a check-in event is about the attendee). */
function objectTypeOf(eventType: string): string | undefined {
  return typenameOf[eventType.slice(0, eventType.indexOf("."))];
}

function presentEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    appId: row.app_id,
    url: row.url,
    events: row.events.split(" ").filter(Boolean),
    fragments: JSON.parse(row.fragments) as Record<string, string>,
    secretLastFour: secretLastFour(row.secret),
    disabledAt: row.disabled_at,
    failingSince: row.failing_since,
  };
}

/** Presents a delivery row for the log. */
function presentDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    seq: Number(row.seq),
    appId: row.app_id,
    type: row.event_type,
    projectId: row.project_id,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    lastError: row.last_error,
    payload: row.payload,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    nextAttemptAt: row.status === "PENDING" ? row.next_attempt_at : null,
  };
}

function presentAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    url: row.url,
    requestHeaders: JSON.parse(row.request_headers) as Record<string, string>,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    error: row.error,
  };
}

/**
 * Subscriptions and the delivery log. Who may manage an app's webhook is the apps module's rule
 * (`apps.getApp` answers NOT_FOUND to anyone but the managers of its home project); an app reads
 * its own endpoint and log through the API.
 */
export function createWebhooksService(
  db: Db,
  config: Config,
  changes: ProjectChanges,
  apps: AppsService,
  access: AccessService,
) {
  // This process's dispatcher, told once queued deliveries are committed. Only then: waking it
  // after every write cost each write a claim transaction and a due-date read (four statements).
  // A redelivery or a ping names no app: the dispatcher looks whatever its endpoints' slots.
  const queuedListeners = new Set<(apps: readonly string[]) => void>();
  const queued = (apps: readonly string[] = []) => {
    for (const listener of queuedListeners) listener(apps);
  };
  changes.addRecorder(async (trx, _actor, event) => {
    // Deliveries hold rendered personal data of the project (no foreign key removes them): they go
    // with it, in its deletion's transaction.
    if (event.type === "project.deleted") await repo.deleteForProject(trx, event.projectId);
    const apps = await recordDeliveries(trx, event);
    if (apps.length > 0) afterCommit(trx, () => queued(apps));
  });
  let checkSelection: SelectionCheck | undefined;

  async function managedApp(actor: Actor, appId: string) {
    return apps.getApp(actor, appId);
  }

  return {
    /** Lets the service check fragments against the API schema (the app wires it at start-up). */
    useSelectionCheck(check: SelectionCheck): void {
      checkSelection = check;
    },

    /**
     * Calls `listener` whenever this process queued deliveries (committed), with the apps they are
     * for (none for redeliveries and pings); returns its remover.
     */
    onQueued(listener: (apps: readonly string[]) => void): () => void {
      queuedListeners.add(listener);
      return () => queuedListeners.delete(listener);
    },

    /**
     * Sets the app's endpoint and events. The secret is returned only when it is new (first set-up
     * or `rotateSecret`); a rotated-out secret signs beside the new one for 24 hours. Saving an
     * endpoint enables it again after it was disabled.
     */
    async configure(
      actor: Actor,
      input: z.input<typeof configureInput>,
    ): Promise<{ endpoint: WebhookEndpoint; secret: string | undefined }> {
      const data = parseInput(configureInput, input);
      const app = await managedApp(actor, data.appId);
      let url: URL;
      try {
        url = checkEndpointUrl(data.url, config.webhooks.allowPrivateNetworks);
      } catch (error) {
        if (error instanceof BlockedAddressError)
          throw badInput([{ field: ["url"], message: error.message }]);
        throw error;
      }
      const fragments: Record<string, string> = {};
      for (const [type, selection] of Object.entries(data.fragments ?? {})) {
        const trimmed = selection.trim();
        if (!trimmed) continue;
        const typename = objectTypeOf(type);
        if (!typename) throw badInput([{ field: ["fragments", type], message: "takes no fragment" }]);
        const problem = checkSelection?.(app.apiVersion, typename, trimmed);
        if (problem) throw badInput([{ field: ["fragments", type], message: problem }]);
        fragments[type] = trimmed;
      }
      const existing = await repo.findEndpoint(db, data.appId);
      const now = nowIso();
      const fresh = !existing || data.rotateSecret === true;
      const secret = fresh ? generateSecret() : existing.secret;
      const row: EndpointRow = {
        app_id: data.appId,
        url: url.toString(),
        events: [...new Set(data.events)].join(" "),
        fragments: JSON.stringify(fragments),
        secret,
        previous_secret: existing && fresh ? existing.secret : (existing?.previous_secret ?? null),
        previous_secret_expires_at:
          existing && fresh
            ? new Date(Date.now() + previousSecretLifetimeMs).toISOString()
            : (existing?.previous_secret_expires_at ?? null),
        failing_since: null,
        disabled_at: null,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await repo.upsertEndpoint(db, row);
      return { endpoint: presentEndpoint(row), secret: fresh ? secret : undefined };
    },

    /** Removes the endpoint; pending deliveries are cancelled when they come up. */
    async remove(actor: Actor, appId: string): Promise<void> {
      await managedApp(actor, appId);
      await repo.deleteEndpoint(db, appId);
    },

    /** The app's endpoint for its managers, or undefined when none is set. */
    async endpointOf(actor: Actor, appId: string): Promise<WebhookEndpoint | undefined> {
      await managedApp(actor, appId);
      return this.endpointForApp(appId);
    },

    /** The endpoint of an app already authenticated (the API's `viewer.webhook`). */
    async endpointForApp(appId: string): Promise<WebhookEndpoint | undefined> {
      const row = await repo.findEndpoint(db, appId);
      return row && presentEndpoint(row);
    },

    /** The delivery log, newest first: a page after `beforeSeq`, optionally of one status. */
    async deliveriesForApp(
      appId: string,
      options: { status?: DeliveryStatus | undefined; beforeSeq?: number | undefined; limit: number },
    ): Promise<Delivery[]> {
      return (await repo.listDeliveries(db, appId, options)).map(presentDelivery);
    },

    /** A page of the log, newest first, for the API (`first`/`after` only: the log grows at the top). */
    async deliveryPage(
      appId: string,
      window: PageWindow,
      status: DeliveryStatus | undefined,
    ): Promise<Page<Delivery>> {
      if (window.backward || window.before) {
        throw badInput([{ field: ["last"], message: "is not supported here: page with first and after" }]);
      }
      const beforeSeq = window.after ? Number(window.after[0]) : undefined;
      if (beforeSeq !== undefined && !Number.isSafeInteger(beforeSeq)) {
        throw badInput([{ field: ["after"], message: "is not a cursor returned by this API" }]);
      }
      const rows = await this.deliveriesForApp(appId, { status, beforeSeq, limit: window.limit + 1 });
      return toPage(rows, window, (d) => [String(d.seq), d.id]);
    },

    /** How many deliveries the log holds (of one status). */
    countDeliveries: (appId: string, status?: DeliveryStatus) => repo.countDeliveries(db, appId, status),

    /** The log for the app's managers. */
    async deliveries(
      actor: Actor,
      appId: string,
      options: { status?: DeliveryStatus | undefined; beforeSeq?: number | undefined; limit: number },
    ): Promise<Delivery[]> {
      await managedApp(actor, appId);
      return this.deliveriesForApp(appId, options);
    },

    /** One delivery with every attempt, for the managers of its app; NOT_FOUND otherwise. */
    async delivery(
      actor: Actor,
      deliveryId: string,
    ): Promise<{ delivery: Delivery; attempts: DeliveryAttempt[] }> {
      const row = await repo.findDelivery(db, deliveryId);
      if (!row) throw notFound("Delivery");
      await managedApp(actor, row.app_id).catch(() => {
        throw notFound("Delivery");
      });
      return {
        delivery: presentDelivery(row),
        attempts: (await repo.attemptsOf(db, deliveryId)).map(presentAttempt),
      };
    },

    /** Sends a delivery once more (whatever its state, except while it is pending). */
    async redeliver(actor: Actor, deliveryId: string): Promise<Delivery> {
      const { delivery } = await this.delivery(actor, parseInput(idText, deliveryId));
      // Its body was rendered under the access of its first attempt: sent again only while the app
      // may still receive the event (the dispatcher checks once more at the attempt).
      const row = await repo.findDelivery(db, delivery.id);
      if (!row || !(await mayStillReceive(db, access, row))) {
        throw new AppError(
          ErrorCode.FORBIDDEN,
          "The app no longer has access to this project's events, so this delivery cannot be sent again",
        );
      }
      await repo.requeue(db, delivery.appId, { deliveryId: delivery.id }, nowIso());
      changes.announce(delivery.projectId);
      queued();
      const requeued = await repo.findDelivery(db, delivery.id);
      if (!requeued) throw notFound("Delivery");
      return presentDelivery(requeued);
    },

    /** Sends every FAILED delivery recorded since `since` once more; answers how many. */
    async redeliverFailedSince(actor: Actor, appId: string, since: string): Promise<number> {
      const app = await managedApp(actor, appId);
      const from = parseInput(z.object({ since: dateTime }), { since }).since;
      const count = await repo.requeue(db, appId, { failedSince: from }, nowIso());
      changes.announce(app.projectId);
      queued();
      return count;
    },

    /**
     * Queues an event about the app's own doing (`bulk_operation.finished`) to that app alone, when
     * its endpoint subscribes to it; its body is fixed now, as a ping's.
     */
    async notifyApp(appId: string, projectId: string, type: string, data: Record<string, unknown>) {
      const endpoint = await repo.findEndpoint(db, appId);
      if (!endpoint?.events.split(" ").includes(type)) return;
      const payload = JSON.stringify({ type, timestamp: nowIso(), data });
      const about = { app_id: appId, project_id: projectId, event_type: type, object_typename: "App" };
      const row = pendingDelivery({ ...about, object_id: appId, changed: null, payload });
      // Bare: as a ping's, this delivery row is outbox state that no access decision reads.
      await db.transaction().execute((trx) => repo.insertDeliveries(trx, projectId, [row]));
      changes.announce(projectId);
      queued([appId]);
    },

    /** Queues a signed `ping` to the endpoint (the dashboard's Send test event). */
    async sendPing(actor: Actor, appId: string): Promise<Delivery> {
      const app = await managedApp(actor, appId);
      if (!(await repo.findEndpoint(db, appId))) {
        throw badInput([{ field: ["url"], message: "Set a webhook URL first" }]);
      }
      const row = pendingDelivery({
        app_id: appId,
        project_id: app.projectId,
        event_type: "ping",
        object_typename: "App",
        object_id: appId,
        changed: null,
        payload: JSON.stringify({
          type: "ping",
          timestamp: nowIso(),
          data: { appId: globalId("App", appId), projectId: app.projectId },
        }),
      });
      // Bare: a ping's delivery row is outbox state that no access decision reads; `announce` tells the cache.
      await db.transaction().execute((trx) => repo.insertDeliveries(trx, app.projectId, [row]));
      changes.announce(app.projectId);
      queued();
      return presentDelivery({ ...row, seq: 0 });
    },
  };
}
