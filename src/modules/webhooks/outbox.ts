import type { Tx } from "../../db/database.js";
import { newId } from "../../shared/ids.js";
import type { DomainEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { effectiveLinkPermissions } from "../access/access.service.js";
import { parsePermissions } from "../access/permissions.js";
import { eventTypeInfo, mayReceive } from "./catalogue.js";
import { type DeliveryRow, webhooksRepository as repo, type SubscriberRow } from "./webhooks.repository.js";

const subscribed = (events: string, type: string) => events.split(" ").includes(type);

function permissionsOf(subscriber: SubscriberRow) {
  const own = parsePermissions(subscriber.app_permissions);
  return new Set(
    subscriber.link_permissions === null ? own : effectiveLinkPermissions(subscriber.link_permissions, own),
  );
}

/**
 * The outbox: a recorder (ProjectChanges.addRecorder) that writes one delivery per subscribed app
 * in the write's own transaction, so a committed change always has its deliveries and a rolled-back
 * one never does. Who receives it is decided here, with the permissions each project's link grants
 * at commit time; the dispatcher checks again before each attempt (a revocation stops it at once).
 * Returns the apps it queued deliveries for.
 */
export async function recordDeliveries(trx: Tx, event: DomainEvent): Promise<string[]> {
  if (!eventTypeInfo(event.type)) return [];
  let appIds: string[];
  if (event.type.startsWith("app.link.")) {
    // About the app's own link: it hears of it even when the link no longer grants anything.
    const owner = await repo.linkSubscriber(trx, event.object.id);
    appIds = owner && subscribed(owner.events, event.type) ? [owner.app_id] : [];
  } else {
    const subscribers = await repo.subscribersOf(trx, event.projectId);
    appIds = subscribers
      .filter((s) => subscribed(s.events, event.type) && mayReceive(event.type, permissionsOf(s)))
      .map((s) => s.app_id);
  }
  if (appIds.length === 0) return [];
  const rows = [...new Set(appIds)].map((appId) =>
    pendingDelivery({
      app_id: appId,
      project_id: event.projectId,
      event_type: event.type,
      object_typename: event.object.typename,
      object_id: event.object.id,
      changed: event.changed ? JSON.stringify(event.changed) : null,
      payload: null,
    }),
  );
  await repo.insertDeliveries(trx, event.projectId, rows);
  return rows.map((row) => row.app_id);
}

/** A new delivery row waiting for its first attempt, due now: what it is about, the rest fixed. */
export function pendingDelivery(
  about: Pick<
    DeliveryRow,
    "app_id" | "project_id" | "event_type" | "object_typename" | "object_id" | "changed" | "payload"
  >,
): Omit<DeliveryRow, "seq"> {
  const now = nowIso();
  return {
    ...about,
    id: newId(),
    status: "PENDING",
    attempts: 0,
    next_attempt_at: now,
    lease_token: null,
    locked_until: null,
    response_status: null,
    last_error: null,
    created_at: now,
    delivered_at: null,
  };
}
