import type { FastifyInstance, FastifyRequest } from "fastify";
import { notFound } from "../../errors.js";
import type { ProjectAccess } from "../../modules/access/access.service.js";
import type { Actor } from "../../modules/access/actor.js";
import { can } from "../../modules/access/policy.js";
import type { Project } from "../../modules/projects/projects.service.js";
import { type PageWindow, resolvePageArgs } from "../../shared/pagination.js";
import { actorOf } from "../context.js";

/** What every project page starts from: who asks, their access, and the project. */
export interface ProjectPageData {
  actor: Actor;
  access: ProjectAccess;
  project: Project;
}

/** Loads the project of a `/b/:projectId/...` route; strangers and missing projects get NOT_FOUND alike. */
export async function loadProjectPage(
  app: FastifyInstance,
  request: FastifyRequest<{ Params: { projectId: string } }>,
): Promise<ProjectPageData> {
  const actor = actorOf(request);
  const access = await app.services.access.require(actor, request.params.projectId);
  const project = await app.services.projects.get(actor, access.projectId);
  // Managers see a count on Settings and Integrations while an app waits for their approval.
  if (can(access, "integrations.manage")) {
    request.dashboard.pendingApprovals = await app.services.apps.pendingApprovalCount(project.id);
  }
  return { actor, access, project };
}

/** The largest page a dashboard list asks for; pick-lists (rooms, tracks, speakers) show this many. */
export const listWindow = (after?: string): PageWindow =>
  resolvePageArgs({ first: 100, after: after || null });

/**
 * The row an id in this project's URL names, from a service's access-checked lookup. A row of
 * another project answers like a missing one, so a URL cannot reach across projects.
 */
export function findInProject<T extends { projectId: string }>(
  data: ProjectPageData,
  what: string,
  found: { item: T } | undefined,
): T {
  if (!found || found.item.projectId !== data.project.id) throw notFound(what);
  return found.item;
}
