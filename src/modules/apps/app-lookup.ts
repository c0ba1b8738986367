import type { Db } from "../../db/database.js";
import { appsRepository } from "./apps.repository.js";

/** Small reads of apps for other modules, usable inside their transactions (the audit log's actor). */
export const appLookup = {
  /** The app's name, or undefined when it is gone. */
  async name(db: Db, appId: string): Promise<string | undefined> {
    return (await appsRepository.findById(db, appId))?.name;
  },
  /**
   * The other projects that apps homed in `projectId` are linked to: deleting the home project ends
   * those apps, so these projects' cached answers for them must go too.
   */
  async projectsLinkedFromHome(db: Db, projectId: string): Promise<string[]> {
    const apps = await appsRepository.listForProject(db, projectId);
    const linked = await Promise.all(apps.map((app) => appsRepository.activeLinkedProjectIds(db, app.id)));
    return [...new Set(linked.flat())];
  },
  /** The app's home project, requested permissions and name, or undefined when it is gone. */
  async standing(db: Db, appId: string) {
    const app = await appsRepository.findById(db, appId);
    return (
      app && {
        projectId: app.project_id,
        permissions: app.permissions,
        name: app.name,
        apiVersion: app.api_version,
      }
    );
  },
  /** Who created the app (its developer), or null when the operator did or they are gone. */
  async creator(db: Db, appId: string): Promise<string | null> {
    return (await appsRepository.findById(db, appId))?.created_by ?? null;
  },
  /** The id of the app's active link to a project, or undefined (its home project has none). */
  async activeLinkId(db: Db, appId: string, projectId: string): Promise<string | undefined> {
    return (await appsRepository.findActiveLink(db, appId, projectId))?.id;
  },
};
