import type { Db } from "../../db/database.js";
import type { AccessService } from "../access/access.service.js";
import { type Permission, parsePermissions } from "../access/permissions.js";
import { mayReceive } from "./catalogue.js";
import { type DeliveryRow, webhooksRepository as repo } from "./webhooks.repository.js";

/**
 * The app a delivery is for, as the actor it renders as, and whether it may still receive the
 * delivery's event: its link to the project active and granting the event's permission (the home
 * project grants the app's own set). An AppLink event goes to the app whose link it is, revoked or
 * not (that is how an app learns it was disconnected). Undefined when the app or the link is gone.
 */
export async function receivingApp(db: Db, access: AccessService, delivery: DeliveryRow) {
  const app = await repo.findApp(db, delivery.app_id);
  if (!app) return undefined;
  const actor = {
    kind: "app" as const,
    appId: app.id,
    homeProjectId: app.project_id,
    permissions: parsePermissions(app.permissions),
    appName: app.name,
    // Payloads are rendered in the version the app is pinned to (render.ts).
    apiVersion: app.api_version,
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
