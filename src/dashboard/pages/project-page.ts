import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ProjectAccess } from "../../modules/access/access.service.js";
import type { Actor } from "../../modules/access/actor.js";
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
  return { actor, access, project };
}

/** The largest page a dashboard list asks for; pick-lists (rooms, tracks, speakers) show this many. */
export const listWindow = (after?: string): PageWindow =>
  resolvePageArgs({ first: 100, after: after || null });
