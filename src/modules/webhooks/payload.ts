import type { DatabaseHandle } from "../../db/database.js";
import type { AccessService } from "../access/access.service.js";
import { parsePermissions } from "../access/permissions.js";
import { receivingApp } from "./receiving.js";
import type { ObjectRenderer } from "./render.js";
import type { DeliveryRow, EndpointRow } from "./webhooks.repository.js";

/** What rendering a payload needs. */
export interface PayloadDeps {
  database: DatabaseHandle;
  access: AccessService;
  renderer: ObjectRenderer;
}

/**
 * The body of a delivery: its object rendered as the app sees it now (its fragment, its link's
 * permissions, the endpoint's fragment), or undefined when the app may no longer see it. Called for
 * a delivery's first attempt; the body is then stored, so every retry sends the same bytes.
 */
export async function renderPayload(
  deps: PayloadDeps,
  delivery: DeliveryRow,
  endpoint: EndpointRow,
): Promise<string | undefined> {
  const receiving = await receivingApp(deps.database.db, deps.access, delivery);
  if (!receiving) return undefined;
  const { actor, link } = receiving;
  let object: unknown;
  if (link) {
    object = {
      projectId: link.project_id,
      permissions: parsePermissions(link.permissions),
      authorizedAt: link.authorized_at,
      revokedAt: link.revoked_at,
    };
  } else {
    const fragments = JSON.parse(endpoint.fragments) as Record<string, string>;
    const rendered = await deps.renderer.render(
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
