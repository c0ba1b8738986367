import { z } from "zod";
import type { Db } from "../../db/database.js";
import type { MemberRole, ProjectStatus } from "../../db/schema.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { allAreas } from "../../shared/data-areas.js";
import {
  changedFields,
  objectEvent,
  type ProjectChanges,
  updateEvent,
} from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  dateTime,
  httpUrl,
  optionalMultilineText,
  optionalText,
  parseInput,
  requiredText,
  timeZone,
} from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { usersRepository } from "../accounts/users.repository.js";
import { appLookup } from "../apps/app-lookup.js";
import { generateProjectId } from "./project-id.js";
import { type ProjectRow, projectsRepository } from "./projects.repository.js";

/** A project as the rest of the system sees it. */
export interface Project {
  id: string;
  name: string;
  description: string | null;
  timezone: string;
  startsAt: string | null;
  endsAt: string | null;
  venue: { name: string | null; address: string | null; city: string | null; country: string | null };
  website: string | null;
  status: ProjectStatus;
  /** A developer's test project: demo data, never published, never counted (docs/guides/13-test-projects.md). */
  isTest: boolean;
  /** The demo generator's seed of a test project (its reset generates it again); null otherwise. */
  testSeed: number | null;
  createdAt: string;
  updatedAt: string;
}

export function presentProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    venue: {
      name: row.venue_name,
      address: row.venue_address,
      city: row.venue_city,
      country: row.venue_country,
    },
    website: row.website,
    status: row.status,
    isTest: row.is_test !== 0,
    testSeed: row.test_seed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const status = z.enum(["DRAFT", "PUBLISHED", "ARCHIVED"]);

const venueInput = z
  .object({
    name: optionalText(200),
    address: optionalText(300),
    city: optionalText(120),
    // ISO 3166-1 alpha-2 keeps venues comparable across events.
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, "must be a two-letter ISO 3166 country code, e.g. DE")
      .transform((c) => c.toUpperCase())
      .nullish(),
  })
  .partial();

const projectFields = {
  name: requiredText(200),
  description: optionalMultilineText(10_000),
  timezone: timeZone,
  startsAt: dateTime.nullish(),
  endsAt: dateTime.nullish(),
  venue: venueInput.nullish(),
  website: httpUrl.nullish(),
  status,
};

const createInput = z.object({
  ...projectFields,
  timezone: timeZone.default("UTC"),
  status: status.default("DRAFT"),
});
const updateInput = z.object(projectFields).partial();

export type CreateProjectInput = z.input<typeof createInput>;
export type UpdateProjectInput = z.input<typeof updateInput>;

const maxIdAttempts = 20;

/**
 * The one rule that a test project is never published, said as a user error; the database refuses
 * it too (migration 2026-11-29T02-00_test-projects), whatever path writes the status.
 */
function refusePublishingTest(status: ProjectStatus | undefined): void {
  if (status === "PUBLISHED") {
    throw badInput([{ field: ["status"], message: "A test project is never published" }]);
  }
}

function checkDates(startsAt: string | null | undefined, endsAt: string | null | undefined): void {
  if (startsAt && endsAt && endsAt < startsAt) {
    throw badInput([{ field: ["endsAt"], message: "must not be before startsAt" }]);
  }
}

/** Projects (events): creation with a random 4-character id, details, status and members. */
export function createProjectsService(db: Db, access: AccessService, changes: ProjectChanges) {
  return {
    /**
     * Creates a project owned by `ownerUserId` (the signed-in organizer, or any user for the CLI).
     * `actor` is who asked, for the audit log: the organizer themselves unless the operator did.
     */
    async create(
      ownerUserId: string,
      input: CreateProjectInput,
      actor: Actor = { kind: "user", userId: ownerUserId },
      /** A test project's demo seed: the project is then a test project, for good. */
      test?: { seed: number },
    ): Promise<Project> {
      const data = parseInput(createInput, input);
      if (test) refusePublishingTest(data.status);
      checkDates(data.startsAt, data.endsAt);
      if (!(await usersRepository.findById(db, ownerUserId))) throw notFound("User");
      const now = nowIso();
      // 62^4 ids: collisions are rare but certain over time, so a taken id is simply drawn again.
      for (let attempt = 0; attempt < maxIdAttempts; attempt++) {
        const row: ProjectRow = {
          id: generateProjectId(),
          name: data.name,
          description: data.description,
          timezone: data.timezone,
          starts_at: data.startsAt ?? null,
          ends_at: data.endsAt ?? null,
          venue_name: data.venue?.name ?? null,
          venue_address: data.venue?.address ?? null,
          venue_city: data.venue?.city ?? null,
          venue_country: data.venue?.country ?? null,
          website: data.website ?? null,
          status: data.status,
          is_test: test ? 1 : 0,
          test_seed: test?.seed ?? null,
          created_at: now,
          updated_at: now,
        };
        // An API answer "not found" for this id may be cached; the version bump replaces it.
        const created = await changes.write(
          db,
          undefined,
          row.id,
          async (trx) => {
            if (await projectsRepository.findById(trx, row.id)) return false;
            await projectsRepository.insert(trx, row);
            await projectsRepository.upsertMember(trx, {
              project_id: row.id,
              user_id: ownerUserId,
              role: "OWNER",
              created_at: now,
            });
            await changes.event(trx, actor, {
              ...objectEvent(row.id, "Project", row.id, "created"),
              changed: changedFields(data),
            });
            return true;
          },
          allAreas,
          { takesNothingAway: true },
        );
        if (created) return presentProject(row);
      }
      throw new AppError(ErrorCode.INTERNAL_SERVER_ERROR, "Could not allocate a project id");
    },

    /** A project the actor can see; NOT_FOUND otherwise. */
    async get(actor: Actor, projectId: string): Promise<Project> {
      await access.require(actor, projectId);
      const row = await projectsRepository.findById(db, projectId);
      if (!row) throw notFound("Project");
      return presentProject(row);
    },

    /** The project behind an access already resolved (the API resolves access once per request). */
    async load(access: ProjectAccess): Promise<Project> {
      const row = await projectsRepository.findById(db, access.projectId);
      if (!row) throw notFound("Project");
      return presentProject(row);
    },

    /**
     * The project as its id alone, without reading its row, for a selection that reads nothing
     * else of it (`projectIdOnly` in projects.graphql.ts): like the partial rows of a projection
     * (db/projection.ts), only the caller that asked may read it.
     */
    idOnly(access: ProjectAccess): Project {
      return { id: access.projectId } as Project;
    },

    /** Projects by id, for batch loading; callers must have checked access to each. */
    async byIds(ids: readonly string[]): Promise<Map<string, Project>> {
      const rows = await projectsRepository.findByIds(db, ids);
      return new Map(rows.map((row) => [row.id, presentProject(row)]));
    },

    /** Projects the organizer belongs to, newest first, with their role. */
    async listForUser(userId: string): Promise<(Project & { role: MemberRole })[]> {
      const rows = await projectsRepository.listForUser(db, userId);
      return rows.map((row) => ({ ...presentProject(row), role: row.role }));
    },

    /** Updates basic fields; needs project:write (OWNER/ADMIN, or an app granted it). */
    async update(actor: Actor, projectId: string, input: UpdateProjectInput): Promise<Project> {
      await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(updateInput, input);
      const project = await changes.write(db, actor, projectId, async (trx) => {
        const current = await projectsRepository.findById(trx, projectId);
        if (!current) throw notFound("Project");
        const startsAt = data.startsAt === undefined ? current.starts_at : data.startsAt;
        const endsAt = data.endsAt === undefined ? current.ends_at : data.endsAt;
        checkDates(startsAt, endsAt);
        const patch: Partial<ProjectRow> = { updated_at: nowIso() };
        if (data.name !== undefined) patch.name = data.name;
        if (data.description !== undefined) patch.description = data.description;
        if (data.timezone !== undefined) patch.timezone = data.timezone;
        if (data.startsAt !== undefined) patch.starts_at = data.startsAt;
        if (data.endsAt !== undefined) patch.ends_at = data.endsAt;
        if (data.website !== undefined) patch.website = data.website;
        if (data.status !== undefined) {
          if (current.is_test) refusePublishingTest(data.status);
          patch.status = data.status;
        }
        if (data.venue !== undefined) {
          const venue = data.venue ?? {};
          if (venue.name !== undefined || data.venue === null) patch.venue_name = venue.name ?? null;
          if (venue.address !== undefined || data.venue === null) patch.venue_address = venue.address ?? null;
          if (venue.city !== undefined || data.venue === null) patch.venue_city = venue.city ?? null;
          if (venue.country !== undefined || data.venue === null) patch.venue_country = venue.country ?? null;
        }
        await projectsRepository.update(trx, projectId, patch);
        const updated = await projectsRepository.findById(trx, projectId);
        if (!updated) throw notFound("Project");
        await changes.event(
          trx,
          actor,
          updateEvent(projectId, "Project", projectId, data, { before: current, after: updated }),
        );
        return presentProject(updated);
      });
      return project;
    },

    /**
     * Deletes a project for good (OWNER, or the operator): its agenda, tickets, attendees, members,
     * invitations, the apps homed in it (so their tokens fail on the next request) and every link
     * of any app to it. `confirmation` must repeat the project's id or name, as typed by a person.
     */
    async delete(actor: Actor, projectId: string, confirmation: string): Promise<Project> {
      await access.requireAction(actor, projectId, "project.delete");
      const current = await projectsRepository.findById(db, projectId);
      if (!current) throw notFound("Project");
      const typed = typeof confirmation === "string" ? confirmation.trim() : "";
      if (typed !== current.id && typed !== current.name.trim()) {
        throw badInput([
          { field: ["confirmation"], message: "That is neither the project's id nor its exact name" },
        ]);
      }
      const linked = await inTransaction(db, actor, async (trx) => {
        const linked = await appLookup.projectsLinkedFromHome(trx, projectId);
        // Recorded first: the audit log keeps a tombstone of who deleted the project.
        await changes.event(trx, actor, {
          projectId,
          type: "project.deleted",
          object: { typename: "Project", id: projectId },
          values: { name: current.name },
        });
        let deleted: number;
        do deleted = await projectsRepository.deleteAttendeesBatch(trx, projectId, deleteBatch);
        while (deleted === deleteBatch);
        if (!(await projectsRepository.delete(trx, projectId))) throw notFound("Project");
        await changes.record(trx, ...linked);
        return linked;
      });
      await changes.announceRecorded(projectId, ...linked);
      return presentProject(current);
    },
  };
}

const deleteBatch = 2_000;

export type ProjectsService = ReturnType<typeof createProjectsService>;
