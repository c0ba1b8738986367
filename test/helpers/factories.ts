import { randomUUID } from "node:crypto";
import { systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/apps/permissions.js";
import type { CreateProjectInput } from "../../src/modules/projects/projects.service.js";
import type { Services } from "../../src/services.js";

/** A unique email, so tests sharing the PostgreSQL database never collide. */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 12)}@example.test`;
}

export const testPassword = "correct horse battery staple";

/** A new user (verified unless told otherwise). */
export async function createUser(
  services: Services,
  overrides: { email?: string; name?: string; verified?: boolean } = {},
) {
  const user = await services.users.create({
    email: overrides.email ?? uniqueEmail(),
    name: overrides.name ?? "Ada Organizer",
    password: testPassword,
  });
  return overrides.verified === false ? user : services.users.markEmailVerified(user.id);
}

/** A new project owned by a new (or the given) user. */
export async function createProject(
  services: Services,
  options: { ownerId?: string; input?: Partial<CreateProjectInput> } = {},
) {
  const ownerId = options.ownerId ?? (await createUser(services)).id;
  const project = await services.projects.create(ownerId, {
    name: "Test Conference",
    timezone: "Europe/Berlin",
    ...options.input,
  });
  return { project, ownerId };
}

/** A new app (with its one-time token) in a new (or the given) project, created by the project's owner. */
export async function createApp(
  services: Services,
  options: { projectId?: string; ownerId?: string; name?: string; permissions?: Permission[] } = {},
) {
  const home = options.projectId
    ? { projectId: options.projectId, ownerId: options.ownerId }
    : await createProject(services).then(({ project, ownerId }) => ({ projectId: project.id, ownerId }));
  const actor = home.ownerId ? { kind: "user" as const, userId: home.ownerId } : systemActor;
  const { app, token } = await services.apps.createApp(actor, {
    projectId: home.projectId,
    name: options.name ?? "Schedule Sync",
    permissions: options.permissions ?? ["agenda:read"],
  });
  return { app, token, projectId: home.projectId, ownerId: home.ownerId };
}
