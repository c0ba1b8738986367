import type { Config } from "./config.js";
import type { DatabaseHandle } from "./db/database.js";
import type { Logger } from "./logger.js";
import { createAccessService } from "./modules/access/access.service.js";
import { createUsersService } from "./modules/accounts/users.service.js";
import { createDemoService } from "./modules/demo/demo.service.js";
import { createProjectsService } from "./modules/projects/projects.service.js";
import { ProjectChanges } from "./shared/project-changes.js";

/**
 * Every domain service, built once per process over one database. The dashboard, the API and the
 * CLI all call these, so each rule lives in exactly one place.
 */
export function createServices(database: DatabaseHandle, config: Config, logger: Logger) {
  const { db } = database;
  const access = createAccessService(db);
  const changes = new ProjectChanges();
  const users = createUsersService(db);
  const projects = createProjectsService(db, access, changes);
  return {
    config,
    logger,
    database,
    changes,
    access,
    users,
    projects,
    demo: createDemoService(db, { users, projects, changes }),
  };
}

export type Services = ReturnType<typeof createServices>;
