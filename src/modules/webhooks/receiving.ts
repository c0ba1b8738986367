import type { Db } from "../../db/database.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type Permission, parsePermissions } from "../access/permissions.js";
import { mayReceive } from "./catalogue.js";
import { type DeliveryRow, webhooksRepository as repo } from "./webhooks.repository.js";

type AppActor = Extract<Actor, { kind: "app" }>;
type LinkRow = NonNullable<Awaited<ReturnType<typeof repo.findLink>>>;

/** The app a delivery goes to, as the actor its object renders as, and the link an AppLink event is about. */
export interface Receiving {
  actor: AppActor;
  link: LinkRow | undefined;
}

/**
 * Of `deliveries` (any apps), those whose app may still receive them, with the app as the actor
 * each renders as: its link to the project active and granting the event's permission (the home
 * project grants the app's own set). An AppLink event goes to the app whose link it is, revoked or
 * not (that is how an app learns it was disconnected). A delivery whose app or link is gone is left
 * out. Each app is read once and its access to each project decided once, so a claim of many
 * deliveries costs a statement or two, not a few per delivery.
 */
export async function receiving(
  db: Db,
  access: AccessService,
  deliveries: readonly DeliveryRow[],
): Promise<Map<string, Receiving>> {
  const actors = new Map<string, Promise<AppActor | undefined>>();
  const standings = new Map<string, Promise<ProjectAccess | undefined>>();
  const out = new Map<string, Receiving>();
  for (const delivery of deliveries) {
    let actor = actors.get(delivery.app_id);
    if (!actor) {
      actor = actorOf(db, delivery.app_id);
      actors.set(delivery.app_id, actor);
    }
    const app = await actor;
    if (!app) continue;
    if (delivery.object_typename === "AppLink") {
      const link = await repo.findLink(db, delivery.object_id);
      if (link && link.app_id === app.appId) out.set(delivery.id, { actor: app, link });
      continue;
    }
    // A ping (Send test event) carries nothing of any project: the app's existence is enough.
    if (delivery.event_type === "ping") {
      out.set(delivery.id, { actor: app, link: undefined });
      continue;
    }
    const key = `${delivery.app_id}\n${delivery.project_id}`;
    let standing = standings.get(key);
    if (!standing) {
      standing = access.resolve(app, delivery.project_id);
      standings.set(key, standing);
    }
    const granted = await standing;
    if (granted && mayReceive(delivery.event_type, granted.permissions as ReadonlySet<Permission>))
      out.set(delivery.id, { actor: app, link: undefined });
  }
  return out;
}

async function actorOf(db: Db, appId: string): Promise<AppActor | undefined> {
  const app = await repo.findApp(db, appId);
  if (!app) return undefined;
  return {
    kind: "app",
    appId: app.id,
    homeProjectId: app.project_id,
    permissions: parsePermissions(app.permissions),
    appName: app.name,
    // Payloads are rendered in the version the app is pinned to (render.ts).
    apiVersion: app.api_version,
  };
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
  return (await receiving(db, access, [delivery])).has(delivery.id);
}
