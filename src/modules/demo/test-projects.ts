import { randomInt } from "node:crypto";
import type { Db } from "../../db/database.js";
import { badInput, notFound } from "../../errors.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, systemActor } from "../access/actor.js";
import { allPermissions } from "../access/permissions.js";
import type { AppsService } from "../apps/apps.service.js";
import type { MembersService } from "../projects/members.service.js";
import type { Project, ProjectsService } from "../projects/projects.service.js";
import { demoProjectInput, generateDemo } from "./demo.generator.js";
import { demoRepository } from "./demo.repository.js";

// A test project holds one demo conference at scale 1 (about 60 sessions and 2,000 attendees):
// realistic enough to build against, small enough to reset in a second.
const testScale = 1;

/** What creating a test project gives its developer: the project, and a token shown once. */
export interface CreatedTestProject {
  project: Project;
  /** The token of the project's "Test app", which holds every permission; shown once. */
  token: string;
  appId: string;
}

/**
 * Test projects (issue 41): a developer's project filled by the demo generator, marked TEST for
 * good (`projects.is_test`), never published (the database refuses it) and reset to its initial
 * data on request. Apps, tokens and webhooks work on it as on any project.
 */
export function createTestProjectsService(
  db: Db,
  deps: {
    access: AccessService;
    projects: ProjectsService;
    members: MembersService;
    apps: AppsService;
    changes: ProjectChanges;
  },
) {
  /** Replaces the project's event data with the conference its seed generates, as of `now`. */
  async function fill(actor: Actor, project: Project, ownerId: string, now: Date): Promise<void> {
    const data = generateDemo(project.id, ownerId, { scale: testScale, seed: project.testSeed ?? 0, now });
    await deps.changes.write(db, actor, project.id, async (trx) => {
      await demoRepository.deleteEventData(trx, project.id);
      await demoRepository.insertAll(trx, data);
      await deps.changes.event(trx, actor, {
        projectId: project.id,
        type: "project.test_data_reset",
        object: { typename: "Project", id: project.id },
        values: { seed: project.testSeed },
      });
    });
  }

  return {
    /**
     * Creates a test project owned by `userId` (any signed-in user: a developer needs no organizer's
     * project), filled with demo data, with an app holding every permission.
     */
    async create(
      userId: string,
      /** Who asked, for the audit log: the developer, unless the operator did (the CLI). */
      actor: Actor = { kind: "user", userId },
      now = new Date(),
    ): Promise<CreatedTestProject> {
      const demo = demoProjectInput(now);
      const project = await deps.projects.create(
        userId,
        { ...demo, name: `Test project: ${demo.name}`, status: "DRAFT" },
        actor,
        { seed: randomInt(0, 2 ** 31) },
      );
      await fill(actor, project, userId, now);
      const { app, token } = await deps.apps.createApp(actor, {
        projectId: project.id,
        name: "Test app",
        description:
          "Every permission on this test project; its token was shown once when the project was made.",
        permissions: [...allPermissions],
      });
      return { project, token, appId: app.id };
    },

    /**
     * Resets a test project's event data (agenda, tickets, attendees, check-ins, orders) to what its
     * seed generates, dated from `now`; its members, apps, links and webhooks stay. Needs
     * project:write; a project that is not a test project is refused.
     */
    async reset(actor: Actor, projectId: string, now = new Date()): Promise<Project> {
      await deps.access.requirePermission(actor, projectId, "project:write");
      const project = await deps.projects.get(actor, projectId);
      if (!project.isTest) {
        throw badInput([{ field: ["projectId"], message: "Only a test project can be reset" }]);
      }
      const owner = (await deps.members.list(systemActor, projectId)).find((m) => m.role === "OWNER");
      if (!owner) throw notFound("Project owner");
      await fill(actor, project, owner.userId, now);
      return project;
    },
  };
}
