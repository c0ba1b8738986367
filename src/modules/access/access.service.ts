import type { Db } from "../../db/database.js";
import type { MemberRole, ProjectStatus } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import type { AreaVersions } from "../../shared/data-areas.js";
import { isProjectId } from "../projects/project-id.js";
import { projectsRepository } from "../projects/projects.repository.js";
import type { Actor } from "./actor.js";
import { allPermissions, type Permission, parsePermissions } from "./permissions.js";
import {
  assertPermission,
  authorize,
  type ProjectAction,
  permissionsOfRole,
  type Standing,
} from "./policy.js";
import { Remembered } from "./remembered.js";

/**
 * What an actor may do in one project. `permissions` are the effective API permissions: for an
 * organizer everything their role allows, for an app what was granted to it for this project.
 */
export interface ProjectAccess extends Standing {
  projectId: string;
  projectStatus: ProjectStatus;
  /** The organizer's role; undefined for apps, the public and the system. */
  role: MemberRole | undefined;
  /**
   * An app that reaches this published project only as the public does (never linked, or revoked):
   * refused a field or an action, it is told the project is not linked to it (NOT_FOUND, as for a
   * draft), not that it lacks a permission it may well hold in its own projects.
   */
  unlinked: boolean;
}

/** An access decision with the version of the project's data it was made at. */
export interface VersionedAccess {
  access: ProjectAccess | undefined;
  /** The project's version counters per area; null when there is no such project. */
  versions: AreaVersions | null;
}

/**
 * What tells whether something read about a project may have changed since: the response cache's
 * clock (graphql/cache/response-cache.ts), which hears of every write of this process at once and
 * of other processes' as its push channel delivers them. Without one, everything is read each time.
 */
export interface ChangeClock {
  /** Moved by other processes' unseen writes and by any project-area change; see ResponseCache. */
  credentialsEpoch(): number | undefined;
  /** Moved by other processes' unseen writes only; undefined when they cannot be seen. */
  epoch(): number | undefined;
  /** A mark to take before reading. */
  begin(): number;
  /** Whether the project (any of its areas) or everything changed after `mark`. */
  changedSince(projectId: string, mark: number): boolean;
}

const noClock: ChangeClock = {
  credentialsEpoch: () => undefined,
  epoch: () => undefined,
  begin: () => 0,
  changedSince: () => true,
};

type StatusAndVersions = NonNullable<Awaited<ReturnType<typeof projectsRepository.findStatusAndVersion>>>;

/** An access decision; remembered decisions are handed out again with each request's own actor. */
function accessOf(
  projectId: string,
  projectStatus: ProjectStatus,
  actor: Actor,
  role: MemberRole | undefined,
  permissions: ReadonlySet<Permission>,
  unlinked = false,
): ProjectAccess {
  return { projectId, projectStatus, actor, role, permissions, unlinked };
}

/**
 * Decides who sees which project; the only place these rules are written. The `clock` lets an
 * app's access and a project's status and versions be remembered while they stand still.
 */
export function createAccessService(db: Db, clock: ChangeClock = noClock, remember = true) {
  // An app's access to a project, remembered under the credentials epoch as its token is
  // (graphql/authentication.ts; the rule and lifetime: remembered.ts): everything the decision reads
  // (the project's status, the app's link and permissions) moves the project's version in the
  // database when it changes, which moves that epoch here at once or as soon as it is heard from
  // another process. A write by id then costs one round trip less (the project's status). Reads
  // still read the project's versions (resolveVersioned).
  const known = new Remembered<ProjectAccess | undefined>(() => clock.credentialsEpoch(), {
    enabled: remember,
  });

  async function resolve(actor: Actor, projectId: string): Promise<ProjectAccess | undefined> {
    if (actor.kind !== "app") return (await resolveVersioned(actor, projectId)).access;
    const epoch = known.now();
    // The permissions are part of the key: a token remembered under an older set never matches.
    const key = `${actor.appId}\n${actor.homeProjectId}\n${actor.permissions.join(",")}\n${projectId}\n${actor.grant?.projectId ?? ""}`;
    const found = known.recall(key, epoch);
    if (found) {
      const a = found.value;
      return a && accessOf(a.projectId, a.projectStatus, actor, a.role, a.permissions, a.unlinked);
    }
    const { access } = await resolveVersioned(actor, projectId);
    known.keep(key, epoch, access);
    return access;
  }

  // The access, and the project's data version read in the same statement: the version is read
  // before any of the project's data, which is what makes a cached answer safe to check against it.
  async function resolveVersioned(actor: Actor, projectId: string): Promise<VersionedAccess> {
    if (!isProjectId(projectId)) return { access: undefined, versions: null };
    const project = await statusAndVersions(projectId);
    if (!project) return { access: undefined, versions: null };
    return { access: await decide(actor, projectId, project.status), versions: project.versions };
  }

  // A project's status and versions, remembered from the read that found them until the clock
  // says the project (or anything unseen) changed after that read began. Every API miss and page
  // read them first. Versions remembered so are never newer than the data read after them (a change
  // moves the clock before anything reads its data here), so an answer stamped with them is at worst
  // checked again sooner, as with a version read from the database. Missing projects are not
  // remembered: any id may be asked for.
  const remembered = new Remembered<{ project: StatusAndVersions; mark: number }>(() => clock.epoch(), {
    enabled: remember,
  });

  async function statusAndVersions(projectId: string): Promise<StatusAndVersions | undefined> {
    const epoch = remembered.now();
    const found = remembered.recall(projectId, epoch);
    if (found && !clock.changedSince(projectId, found.value.mark)) return found.value.project;
    const mark = clock.begin();
    const project = await projectsRepository.findStatusAndVersion(db, projectId);
    if (project) remembered.keep(projectId, epoch, { project, mark });
    return project;
  }

  async function decide(
    actor: Actor,
    projectId: string,
    status: ProjectStatus,
  ): Promise<ProjectAccess | undefined> {
    switch (actor.kind) {
      case "system":
        return accessOf(projectId, status, actor, undefined, new Set(allPermissions));
      case "public":
        if (status !== "PUBLISHED") return undefined;
        return accessOf(projectId, status, actor, undefined, new Set());
      case "user": {
        const member = await db
          .selectFrom("project_members")
          .select("role")
          .where("project_id", "=", projectId)
          .where("user_id", "=", actor.userId)
          .executeTakeFirst();
        if (!member) return undefined;
        return accessOf(projectId, status, actor, member.role, new Set(permissionsOfRole(member.role)));
      }
      case "app": {
        const granted = await grantedToApp(actor, projectId);
        if (granted) return accessOf(projectId, status, actor, undefined, granted);
        // A token never shows less than no token: an app sees any published project as the public does.
        if (status === "PUBLISHED") return accessOf(projectId, status, actor, undefined, new Set(), true);
        return undefined;
      }
    }
  }

  // The home project grants the app's own set; a linked project the set consented to, narrowed
  // to what the app still asks for (see effectiveLinkPermissions). An OAuth access token reaches its
  // grant's one project only, with `permissions` already cut to its scopes; the authentication read
  // that its grant and link are live.
  async function grantedToApp(
    actor: Extract<Actor, { kind: "app" }>,
    projectId: string,
  ): Promise<Set<Permission> | undefined> {
    if (actor.grant && actor.grant.projectId !== projectId) return undefined;
    if (actor.homeProjectId === projectId && !actor.grant) return new Set(actor.permissions);
    const link = await db
      .selectFrom("app_links")
      .select("permissions")
      .where("app_id", "=", actor.appId)
      .where("project_id", "=", projectId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!link) return undefined;
    return new Set(effectiveLinkPermissions(link.permissions, actor.permissions));
  }

  return {
    /** The actor's access to a project, or undefined when it does not exist or is invisible. */
    resolve,

    /** `resolve` plus the project's data version (null when the id names no project). */
    resolveVersioned,

    /** Current data versions of projects (absent when missing): validates cached API answers. */
    dataVersions: (ids: readonly string[]) => projectsRepository.dataVersions(db, ids),

    /** Like `resolve`, but a missing or invisible project throws NOT_FOUND. */
    async require(actor: Actor, projectId: string): Promise<ProjectAccess> {
      const access = await resolve(actor, projectId);
      if (!access) throw notFound("Project");
      return access;
    },

    /** Requires a permission in the project; FORBIDDEN names it when the actor can see but not act. */
    async requirePermission(actor: Actor, projectId: string, permission: Permission): Promise<ProjectAccess> {
      const access = await this.require(actor, projectId);
      assertPermission(access, permission);
      return access;
    },

    /** Requires an organizer action of the policy (FORBIDDEN when the project is visible but refused). */
    async requireAction(actor: Actor, projectId: string, action: ProjectAction): Promise<ProjectAccess> {
      const access = await this.require(actor, projectId);
      authorize(access, action);
      return access;
    },
  };
}

/**
 * What a link lets an app do: the permissions consented to (stored form), narrowed to what the app
 * still asks for. Narrowing an app takes effect at once; widening waits for an organizer's re-approval.
 */
export function effectiveLinkPermissions(granted: string, current: readonly Permission[]): Permission[] {
  const requested = new Set(current);
  return parsePermissions(granted).filter((p) => requested.has(p));
}

export type AccessService = ReturnType<typeof createAccessService>;
