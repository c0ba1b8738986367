import type { DatabaseHandle, Db } from "../../db/database.js";
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
 * The app a delivery is for, as the actor it renders as, and whether it may still receive the
 * delivery's event: its link to the project active and granting the event's permission (the home
 * project grants the app's own set). An AppLink event goes to the app whose link it is, revoked or
 * not (that is how an app learns it was disconnected). Undefined when the app or the link is gone.
 */
async function receivingApp(db: Db, access: AccessService, delivery: DeliveryRow) {
  const app = await repo.findApp(db, delivery.app_id);
  if (!app) return undefined;
  const actor = {
    kind: "app" as const,
    appId: app.id,
    homeProjectId: app.project_id,
    permissions: parsePermissions(app.permissions),
    appName: app.name,
  };
  if (delivery.object_typename === "AppLink") {
    const link = await repo.findLink(db, delivery.object_id);
    if (!link || link.app_id !== app.id) return undefined;
    return { actor, link };
  }
  // A ping (Send test event) carries nothing of any project: the app's existence is enough.
  if (delivery.event_type === "ping") return { actor, link: undefined };
  const standing = await access.resolve(actor, delivery.project_id);
  if (!standing || !mayReceive(delivery.event_type, standing.permissions as ReadonlySet<Permission>))
    return undefined;
  return { actor, link: undefined };
}

/**
 * Whether the delivery's app may still receive it: checked before every attempt, the first and the
 * retries of a stored body alike, and before a redelivery, so a revocation, a narrowed link or a
 * deleted project stops what was rendered before it. A ping needs only its app.
 */
export async function mayStillReceive(
  db: Db,
  access: AccessService,
  delivery: DeliveryRow,
): Promise<boolean> {
  return (await receivingApp(db, access, delivery)) !== undefined;
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
