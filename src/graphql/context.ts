import type { ProjectAccess } from "../modules/access/access.service.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { createLoaders, type Loaders } from "./loaders.js";

/** Per-request state shared by every resolver of one operation. */
export interface GraphQLContext {
  actor: Actor;
  services: Services;
  requestId: string;
  loaders: Loaders;
  /** The caller's access to a project, resolved at most once per request. */
  access(projectId: string): Promise<ProjectAccess | undefined>;
  /** Access already resolved in this request, without waiting (the hot path of field guards). */
  resolvedAccess(projectId: string): ProjectAccess | undefined;
  /** Records access learned elsewhere (a node lookup resolves it together with the row). */
  rememberAccess(access: ProjectAccess): void;
  /** Projects whose data this response read: the response cache tags entries with them. */
  readonly projectsRead: Set<string>;
}

/** A fresh context for one request. */
export function createContext(services: Services, actor: Actor, requestId: string): GraphQLContext {
  const pending = new Map<string, Promise<ProjectAccess | undefined>>();
  const resolved = new Map<string, ProjectAccess | undefined>();
  const projectsRead = new Set<string>();
  return {
    actor,
    services,
    requestId,
    loaders: createLoaders(services),
    projectsRead,
    access(projectId) {
      let promise = pending.get(projectId);
      if (!promise) {
        promise = services.access.resolve(actor, projectId).then((access) => {
          resolved.set(projectId, access);
          if (access) projectsRead.add(projectId);
          return access;
        });
        pending.set(projectId, promise);
      }
      return promise;
    },
    resolvedAccess: (projectId) => resolved.get(projectId),
    rememberAccess(access) {
      resolved.set(access.projectId, access);
      pending.set(access.projectId, Promise.resolve(access));
      projectsRead.add(access.projectId);
    },
  };
}
