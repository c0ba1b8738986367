import type { DatabaseHandle } from "../../db/database.js";
import type { AccessService } from "../access/access.service.js";
import { parsePermissions } from "../access/permissions.js";
import { type Receiving, receiving } from "./receiving.js";
import type { ObjectRenderer, RenderedObject } from "./render.js";
import type { DeliveryRow, EndpointRow } from "./webhooks.repository.js";

/** What rendering a payload needs. */
export interface PayloadDeps {
  database: DatabaseHandle;
  access: AccessService;
  renderer: ObjectRenderer;
}

/**
 * The bodies of one endpoint's claimed deliveries, by delivery id; undefined for a delivery whose
 * app may no longer receive it. A stored body (a retry, a redelivery: rendered under the access of
 * its first attempt, so every retry sends the same bytes) is kept, sent only while the app may still
 * receive the event; the others render now, as the app sees their objects (its fragment, its link's
 * permissions), each type and fragment's objects in one execution.
 */
export async function preparePayloads(
  deps: PayloadDeps,
  deliveries: readonly DeliveryRow[],
  endpoint: EndpointRow,
): Promise<Map<string, string | undefined>> {
  const allowed = await receiving(deps.database.db, deps.access, deliveries);
  const bodies = new Map<string, string | undefined>();
  const fragments = JSON.parse(endpoint.fragments) as Record<string, string>;
  // Objects rendered together: same actor (one app per claim), type and selection.
  const groups = new Map<
    string,
    { receiving: Receiving; selection: string | undefined; rows: DeliveryRow[] }
  >();
  for (const delivery of deliveries) {
    const standing = allowed.get(delivery.id);
    if (!standing || delivery.payload !== null) {
      bodies.set(delivery.id, standing ? (delivery.payload ?? undefined) : undefined);
      continue;
    }
    const { link } = standing;
    if (link) {
      bodies.set(
        delivery.id,
        envelope(delivery, {
          projectId: link.project_id,
          permissions: parsePermissions(link.permissions),
          authorizedAt: link.authorized_at,
          revokedAt: link.revoked_at,
        }),
      );
      continue;
    }
    const selection = fragments[delivery.event_type];
    const key = `${delivery.app_id}\u0000${delivery.object_typename}\u0000${selection ?? ""}`;
    const group = groups.get(key) ?? { receiving: standing, selection, rows: [] };
    group.rows.push(delivery);
    groups.set(key, group);
  }
  for (const { receiving: standing, selection, rows } of groups.values()) {
    const typename = rows[0]?.object_typename ?? "";
    const objects = await deps.renderer.renderMany(
      standing.actor,
      typename,
      rows.map((row) => row.object_id),
      selection,
    );
    rows.forEach((row, i) => {
      bodies.set(row.id, envelope(row, objectOf(objects[i])));
    });
  }
  return bodies;
}

function objectOf(rendered: RenderedObject | undefined): unknown {
  if (!rendered) return null;
  return rendered.ok ? rendered.object : { error: rendered.error };
}

/** The body around a delivery's object: its type, when its write committed, what changed. */
function envelope(delivery: DeliveryRow, object: unknown): string {
  const data: Record<string, unknown> = { projectId: delivery.project_id, object };
  if (delivery.changed) data.changed = JSON.parse(delivery.changed);
  return JSON.stringify({ type: delivery.event_type, timestamp: delivery.created_at, data });
}
