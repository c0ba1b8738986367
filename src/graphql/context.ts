import type { ProjectAccess } from "../modules/access/access.service.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { type AreaMask, allAreas, stampOf } from "../shared/data-areas.js";
import type { RateLimitState } from "./limits/rate-limiter.js";
import { createLoaders, type Loaders } from "./loaders.js";

/** The caller's rate-limit budget after this request was charged, and what it cost. */
export interface RequestBudget extends RateLimitState {
  cost: number;
  points: number;
}

/** Per-request state shared by every resolver of one operation. */
export interface GraphQLContext {
  actor: Actor;
  services: Services;
  requestId: string;
  loaders: Loaders;
  budget: RequestBudget | undefined;
  /** The caller's access to a project, resolved at most once per request. */
  access(projectId: string): Promise<ProjectAccess | undefined>;
  /** Access already resolved in this request, without waiting (the hot path of field guards). */
  resolvedAccess(projectId: string): ProjectAccess | undefined;
  /** Records access learned elsewhere (a node lookup resolves it together with the row). */
  rememberAccess(access: ProjectAccess): void;
  /**
   * Projects this response looked up, found or not: the response cache tags entries with them, so a
   * write to any of them (or the creation of a project that was "not found") drops the entry.
   */
  readonly projectsRead: Set<string>;
  /**
   * The version stamp of the areas read (src/shared/data-areas.ts) each project had when this
   * request resolved access to it (null: no such project).
   */
  readonly projectVersions: Map<string, number | null>;
  /**
   * False once a resolver read something the project versions do not cover: the app itself, the
   * budget, or a project reached through a node lookup (whose version was not read first).
   */
  readonly cacheable: boolean;
  /** Keeps this response out of the response cache. */
  noCache(): void;
}

/** A fresh context for one request. */
export function createContext(
  services: Services,
  actor: Actor,
  requestId: string,
  budget?: RequestBudget,
  /** The data areas the operation reads (graphql/cache/document-areas.ts): what its versions stamp. */
  areas: AreaMask = allAreas,
): GraphQLContext {
  const pending = new Map<string, Promise<ProjectAccess | undefined>>();
  const resolved = new Map<string, ProjectAccess | undefined>();
  const projectsRead = new Set<string>();
  const projectVersions = new Map<string, number | null>();
  let cacheable = true;
  return {
    actor,
    services,
    requestId,
    budget,
    loaders: createLoaders(services),
    projectsRead,
    projectVersions,
    get cacheable() {
      return cacheable;
    },
    noCache() {
      cacheable = false;
    },
    access(projectId) {
      let promise = pending.get(projectId);
      if (!promise) {
        projectsRead.add(projectId);
        promise = services.access.resolveVersioned(actor, projectId).then(({ access, versions }) => {
          resolved.set(projectId, access);
          projectVersions.set(projectId, versions && stampOf(versions, areas));
          return access;
        });
        pending.set(projectId, promise);
      }
      return promise;
    },
    resolvedAccess: (projectId) => resolved.get(projectId),
    rememberAccess(access) {
      if (!pending.has(access.projectId)) {
        // Found through a node lookup: no version was read before the row, so the answer is not cached.
        cacheable = false;
        resolved.set(access.projectId, access);
        pending.set(access.projectId, Promise.resolve(access));
        projectsRead.add(access.projectId);
      }
    },
  };
}
