import type { Permission } from "./permissions.js";

/**
 * Who is asking. Every service call that touches project data names its actor, so the access
 * rules in `access.service.ts` are applied the same way for the dashboard, the API and the CLI.
 */
export type Actor =
  /** A signed-in organizer. */
  | { kind: "user"; userId: string }
  /** An app calling the API with its token; `permissions` is the app's own (requested) set. */
  | { kind: "app"; appId: string; homeProjectId: string; permissions: readonly Permission[] }
  /** No credentials: only published projects and their public data. */
  | { kind: "public" }
  /** The operator through the CLI: full access. */
  | { kind: "system" };

export const publicActor: Actor = { kind: "public" };
export const systemActor: Actor = { kind: "system" };
