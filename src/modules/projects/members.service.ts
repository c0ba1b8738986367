import type { Db, Tx } from "../../db/database.js";
import type { MemberRole } from "../../db/schema.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertKeepsAnOwner, authorize, authorizeMembershipChange, type Standing } from "../access/policy.js";
import { projectsRepository } from "./projects.repository.js";

/** One member of a project, as the Members tab shows it. */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: MemberRole;
  since: string;
}

/**
 * The actor's standing read inside a transaction that holds the project's membership lock, so the
 * decision and the write see the same roles (an ADMIN demoted a moment ago can no longer act).
 */
export async function lockedStanding(
  trx: Tx,
  actor: Actor,
  projectId: string,
): Promise<Pick<Standing, "actor" | "role">> {
  if (!(await projectsRepository.lockMembership(trx, projectId))) throw notFound("Project");
  if (actor.kind === "system") return { actor, role: undefined };
  const role =
    actor.kind === "user"
      ? (await projectsRepository.findMember(trx, projectId, actor.userId))?.role
      : undefined;
  // Not a member: the project does not exist for them.
  if (!role) throw notFound("Project");
  return { actor, role };
}

/**
 * Ends every membership of a user who is deleting their account, inside the caller's transaction.
 * Refuses (CONFLICT, naming the projects) while they are the only owner of any project: the event
 * would be left without anyone who can manage it. Each project's membership lock is taken (in id
 * order, so two deletions cannot deadlock) before its owners are counted, as for a demotion.
 */
export async function leaveAllProjects(trx: Tx, userId: string): Promise<void> {
  const memberships = (await projectsRepository.listForUser(trx, userId)).sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const soleOwner: string[] = [];
  for (const project of memberships) {
    await projectsRepository.lockMembership(trx, project.id);
    // The role read again under the lock: it may have changed since the list was read.
    const role = (await projectsRepository.findMember(trx, project.id, userId))?.role;
    if (role === "OWNER" && (await projectsRepository.countOwners(trx, project.id)) <= 1) {
      soleOwner.push(`“${project.name}” (${project.id})`);
    }
  }
  if (soleOwner.length > 0) {
    throw new AppError(
      ErrorCode.CONFLICT,
      `You are the only owner of ${soleOwner.join(", ")}. Make another member an owner, or delete the project, before deleting your account.`,
    );
  }
  for (const project of memberships) await projectsRepository.deleteMember(trx, project.id, userId);
}

/** Members of a project: the list, role changes and removals, each under the owner rules of the policy. */
export function createMembersService(db: Db, access: AccessService, changes: ProjectChanges) {
  /** Changes one membership under the lock: `to` undefined removes it. */
  async function change(actor: Actor, projectId: string, userId: string, to: MemberRole | undefined) {
    await inTransaction(db, actor, async (trx) => {
      const standing = await lockedStanding(trx, actor, projectId);
      const current = await projectsRepository.findMember(trx, projectId, userId);
      if (!current) throw notFound("Member");
      authorizeMembershipChange(standing, { from: current.role, to });
      if (current.role === to) return;
      // Only a change of an owner can leave none; the count is read under the lock taken above.
      if (current.role === "OWNER") {
        assertKeepsAnOwner({ from: current.role, to }, await projectsRepository.countOwners(trx, projectId));
      }
      if (to) await projectsRepository.upsertMember(trx, { ...current, role: to });
      else await projectsRepository.deleteMember(trx, projectId, userId);
      await changes.event(trx, actor, {
        projectId,
        type: to ? "member.role_changed" : "member.removed",
        object: { typename: "Member", id: userId },
        changed: ["role"],
        values: { role: to ?? null, previousRole: current.role },
      });
    });
  }

  return {
    /** Members with their role, oldest first; any member may see the team. */
    async list(actor: Actor, projectId: string): Promise<Member[]> {
      authorize(await access.require(actor, projectId), "members.view");
      const rows = await projectsRepository.listMembers(db, projectId);
      return rows.map((r) => ({
        userId: r.user_id,
        email: r.email,
        name: r.name,
        role: r.role,
        since: r.created_at,
      }));
    },

    /** Changes a member's role (managers; only an OWNER grants or takes away OWNER). */
    changeRole(actor: Actor, projectId: string, userId: string, role: MemberRole): Promise<void> {
      return change(actor, projectId, userId, role);
    },

    /** Removes a member (managers; only an OWNER removes an OWNER); the last owner stays. */
    removeMember(actor: Actor, projectId: string, userId: string): Promise<void> {
      return change(actor, projectId, userId, undefined);
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
