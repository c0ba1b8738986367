import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import type { ErasedAccount } from "../../shared/erasure.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import type { Actor } from "../access/actor.js";
import { userLookup } from "../accounts/users.service.js";
import { eraseAccountFromAuditLog, recordAccountErasure } from "../audit/account-erasure.js";
import { forgetAuthorizer } from "../oauth/erasure.js";
import { leaveAllProjects } from "../projects/members.service.js";
import { projectLookup } from "../projects/project-lookup.js";
import type { ProjectsService } from "../projects/projects.service.js";

/** What an erasure did, as the CLI prints it. */
export interface AccountErasure {
  id: string;
  erased: true;
  /** The test projects only they owned, deleted with the account. */
  deletedTestProjects: string[];
}

/**
 * Erases a whole account (GDPR Art. 17): an organizer or developer, by the operator (the CLI) or
 * by themselves (account settings, after their password). Refused while they are the only owner of
 * a real project, naming it (GitHub refuses to delete an account that solely owns an organization):
 * an event must keep someone who can manage it. Test projects only they own are deleted first:
 * demo data, of use to no one else.
 *
 * In one transaction: their memberships end (each project's log records `member.erased`), the
 * invitations addressed to them go, grants they authorized forget who did, the audit log keeps
 * every entry they wrote under "Erased user" without a client address and loses their address and
 * name from recorded values, the log records `account.erased` and who erased it, and the user row
 * goes, taking their sessions and email links with it (ON DELETE CASCADE; apps and links they
 * created stay with their projects, the creator forgotten). Apps live in projects, not accounts,
 * so an app outlives its creator with its project. Attendee registrations under the same address
 * belong to the organizers who hold them: `eventgraph attendees erase` erases those.
 */
export function createAccountErasure(deps: { db: Db; changes: ProjectChanges; projects: ProjectsService }) {
  const { db, changes } = deps;

  async function soleOwnerships(userId: string) {
    return (await projectLookup.memberships(db, userId)).filter((p) => p.role === "OWNER" && p.owners <= 1);
  }

  return {
    /** Erases the account `userId` for `actor` (the operator, or the user themselves). */
    async erase(actor: Actor, userId: string): Promise<AccountErasure> {
      const user = await userLookup.byId(db, userId);
      if (!user) throw notFound("User");
      const sole = await soleOwnerships(userId);
      const real = sole.filter((p) => !p.isTest);
      if (real.length > 0) {
        const names = real.map((p) => `“${p.name}” (${p.id})`).join(", ");
        // Said to the person themselves on their account page, or to an operator at the CLI.
        const who = actor.kind === "user" && actor.userId === userId ? "You are" : `${user.email} is`;
        throw new AppError(
          ErrorCode.CONFLICT,
          `${who} the only owner of ${names}. Make another member an owner, or delete the project, before the account can be erased.`,
        );
      }
      const testProjects = sole.map((p) => p.id);
      for (const id of testProjects) await deps.projects.delete(actor, id, id);

      const account: ErasedAccount = { userId, name: user.name, email: user.email };
      const projectIds = await inTransaction(db, actor, async (trx) => {
        const memberships = await projectLookup.memberships(trx, userId);
        // Under each project's membership lock; refuses if they became a sole owner meanwhile.
        await leaveAllProjects(trx, userId);
        for (const project of memberships) {
          await changes.event(trx, actor, {
            projectId: project.id,
            type: "member.erased",
            object: { typename: "Member", id: userId },
            values: { role: project.role },
          });
        }
        const ids = memberships.map((p) => p.id);
        await changes.record(trx, ...ids);
        await projectLookup.forgetInvitationsTo(trx, user.email_normalized);
        await forgetAuthorizer(trx, userId);
        await recordAccountErasure(trx, actor, userId);
        // Last: the entries above, written under their address when they erase themselves, too.
        await eraseAccountFromAuditLog(trx, account, ids);
        await userLookup.delete(trx, userId);
        return ids;
      });
      await changes.announceRecorded(...projectIds);
      return { id: userId, erased: true, deletedTestProjects: testProjects };
    },
  };
}
