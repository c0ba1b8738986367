import type { DatabaseHandle } from "../../db/database.js";
import type { AccessService } from "../access/access.service.js";
import { type Permission, parsePermissions } from "../access/permissions.js";
import { mayReceive } from "./catalogue.js";
import type { ObjectRenderer } from "./render.js";
import { type DeliveryRow, type EndpointRow, webhooksRepository as repo } from "./webhooks.repository.js";

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
  const { db } = deps.database;
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
    const access = await deps.access.resolve(actor, delivery.project_id);
    if (!access || !mayReceive(delivery.event_type, access.permissions as ReadonlySet<Permission>))
      return undefined;
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
