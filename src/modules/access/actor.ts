import type { Permission } from "./permissions.js";

/**
 * Who is asking. Every service call that touches project data names its actor, so the access
 * rules in `access.service.ts` are applied the same way for the dashboard, the API and the CLI.
 */
export type Actor =
  /** A signed-in organizer. */
  | { kind: "user"; userId: string }
  /**
   * An app calling the API with its token; `permissions` is the app's own (requested) set, and
   * `appName` its name as read with the token (the audit log's label; read anew when absent).
   */
  | {
      kind: "app";
      appId: string;
      homeProjectId: string;
      permissions: readonly Permission[];
      appName?: string;
      /**
       * Set when the app calls with an OAuth access token (modules/oauth): the grant reaches this one
       * project only, and `permissions` is already narrowed to the token's scopes.
       */
      grant?: { id: string; projectId: string; expiresAt: number };
      /** The API version the app is pinned to (`apps.api_version`), when it was read. */
      apiVersion?: string;
    }
  /** No credentials: only published projects and their public data. */
  | { kind: "public" }
  /** The operator through the CLI: full access. */
  | { kind: "system" };

export const publicActor: Actor = { kind: "public" };
export const systemActor: Actor = { kind: "system" };

/** Where an actor's request came from, as the audit log records it. */
export interface Origin {
  via: "dashboard" | "api" | "cli";
  /** The client's address (behind a proxy, as TRUST_PROXY lets Fastify read it). */
  ip?: string | undefined;
}

// Each request builds its own actor object, so the object is the key (like the request deadline in
// db/transaction.ts): the origin travels with the actor into every service without a new argument,
// and is gone with the request. The CLI's shared operator actor and unbound actors are the CLI's.
const origins = new WeakMap<object, Origin>();

/** Ties a request's actor to where the request came from; returns the actor. */
export function bindOrigin<A extends Actor>(actor: A, origin: Origin): A {
  origins.set(actor, origin);
  return actor;
}

/** Where the actor's request came from; an actor no request bound acts for the operator's CLI. */
export function originOf(actor: object): Origin {
  return origins.get(actor) ?? { via: "cli" };
}
