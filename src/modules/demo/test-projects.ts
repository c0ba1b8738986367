import { randomInt } from "node:crypto";
import { z } from "zod";
import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { optionalText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, bindOrigin, originOf, systemActor } from "../access/actor.js";
import { allPermissions } from "../access/permissions.js";
import { appLookup } from "../apps/app-lookup.js";
import type { AppsService } from "../apps/apps.service.js";
import type { MembersService } from "../projects/members.service.js";
import { projectLookup } from "../projects/project-lookup.js";
import type { Project, ProjectsService } from "../projects/projects.service.js";
import { demoProjectInput, generateDemo } from "./demo.generator.js";
import { demoRepository } from "./demo.repository.js";

// A test project holds one demo conference at scale 1 (about 60 sessions and 2,000 attendees):
// realistic enough to build against, small enough to reset in a second.
const testScale = 1;

/**
 * Most test projects one developer owns: each holds a demo conference (thousands of rows), so an
 * app or a script in a loop must not fill the database with them. Delete one to make another.
 */
const maxTestProjectsPerDeveloper = 10;

const createInput = z.object({ name: optionalText(80) });

const refused = (message: string) => new AppError(ErrorCode.FORBIDDEN, message);

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

  /**
   * The developer an app creates a test project for, as Shopify's Partner API creates development
   * stores for the partner: the person who created the app, while they still manage its home
   * project. Only the app's own token acting on its real home project may: an OAuth token acts for
   * the organizer who granted one project, and a test project's token must never reach beyond its
   * sandbox (so it cannot make more of them either). Needs project:write on the home project.
   */
  async function developerOf(actor: Actor & { kind: "app" }): Promise<string> {
    if (actor.grant)
      throw refused("An OAuth access token acts for one organizer's project and cannot create test projects");
    await deps.access.requirePermission(actor, actor.homeProjectId, "project:write");
    const homeIsTest = await projectLookup.isTest(db, actor.homeProjectId);
    if (homeIsTest === undefined) throw notFound("Project");
    if (homeIsTest) throw refused("A test project's token cannot create projects");
    const developer = await appLookup.creator(db, actor.appId);
    const role = developer && (await projectLookup.role(db, actor.homeProjectId, developer));
    if (!developer || (role !== "OWNER" && role !== "ADMIN")) {
      throw refused(
        "The person who created this app no longer manages its home project, so it has no developer to create a test project for",
      );
    }
    return developer;
  }

  // Counted before the project is made: a burst of parallel calls may pass together, but each call
  // costs 200 points of the app's hourly budget (test-projects.graphql.ts), which bounds them.
  async function assertBelowLimit(userId: string): Promise<void> {
    const owned = (await projectLookup.memberships(db, userId)).filter((p) => p.isTest && p.role === "OWNER");
    if (owned.length >= maxTestProjectsPerDeveloper) {
      throw new AppError(
        ErrorCode.CONFLICT,
        `You have ${owned.length} test projects, the most one developer may have; delete one to make another`,
      );
    }
  }

  return {
    /**
     * Creates a test project for whoever asks (see `create`): a signed-in user for themselves, an
     * app's token for its developer (see developerOf). The operator uses `create` with an owner.
     */
    async createFor(
      actor: Actor,
      input: { name?: string } = {},
      now = new Date(),
    ): Promise<CreatedTestProject> {
      const name = parseInput(createInput, input).name ?? undefined;
      if (actor.kind === "user") return this.create(actor.userId, actor, now, name);
      if (actor.kind !== "app")
        throw refused("Only a signed-in developer or an app can create a test project");
      // The developer acts, through the app's request: they own the project and its Test app, and
      // link the calling app, as a partner installs their app on a development store, so the app's
      // own token reaches the sandbox it made.
      const developer = bindOrigin(
        { kind: "user" as const, userId: await developerOf(actor) },
        originOf(actor),
      );
      const created = await this.create(developer.userId, developer, now, name);
      await deps.apps.authorize(developer, { appId: actor.appId, projectId: created.project.id });
      return created;
    },

    /**
     * Creates a test project owned by `userId` (any signed-in user: a developer needs no organizer's
     * project), filled with demo data, with an app holding every permission; `name` follows
     * "Test project: " (a generated one when absent).
     */
    async create(
      userId: string,
      /** Who asked, for the audit log: the developer, unless the operator did (the CLI). */
      actor: Actor = { kind: "user", userId },
      now = new Date(),
      name?: string,
    ): Promise<CreatedTestProject> {
      await assertBelowLimit(userId);
      const demo = demoProjectInput(now);
      const project = await deps.projects.create(
        userId,
        { ...demo, name: `Test project: ${name ?? demo.name}`, status: "DRAFT" },
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
