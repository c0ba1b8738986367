import type { Db } from "../../db/database.js";
import type { MemberRole } from "../../db/schema.js";
import { invitationsRepository } from "./invitations.repository.js";
import { projectsRepository } from "./projects.repository.js";

/**
 * Small reads (and the one erasure step) of projects and memberships for other modules, usable
 * inside their transactions: test projects (modules/demo) and account erasure.
 */
export const projectLookup = {
  /** Whether the project is a developer's test project; undefined when it does not exist. */
  async isTest(db: Db, projectId: string): Promise<boolean | undefined> {
    const row = await projectsRepository.findById(db, projectId);
    return row && row.is_test !== 0;
  },
  /** The user's role in the project, or undefined when they are not a member. */
  async role(db: Db, projectId: string, userId: string): Promise<MemberRole | undefined> {
    return (await projectsRepository.findMember(db, projectId, userId))?.role;
  },
  /** Every project the user belongs to, with their role and how many owners it has. */
  async memberships(db: Db, userId: string) {
    const rows = await projectsRepository.listForUser(db, userId);
    return Promise.all(
      rows.map(async (p) => ({
        id: p.id,
        name: p.name,
        isTest: p.is_test !== 0,
        role: p.role,
        owners: await projectsRepository.countOwners(db, p.id),
      })),
    );
  },
  /** Deletes every invitation addressed to an erased account's (normalized) address. */
  async forgetInvitationsTo(db: Db, emailNormalized: string): Promise<void> {
    await invitationsRepository.deleteAddressedTo(db, emailNormalized);
  },
};
