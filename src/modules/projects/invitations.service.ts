import { z } from "zod";
import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import type { MemberRole } from "../../db/schema.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { email, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { authorize, authorizeMembershipChange } from "../access/policy.js";
import type { Mailer } from "../accounts/mailer.js";
import { hashSecret, randomSecret } from "../accounts/sessions.service.js";
import { type Throttle, throttleRules } from "../accounts/throttle.js";
import { userLookup } from "../accounts/users.service.js";
import { type InvitationRow, invitationsRepository } from "./invitations.repository.js";
import { lockedStanding } from "./members.service.js";
import { projectsRepository } from "./projects.repository.js";

/** A pending invitation as the Members tab lists it (never its secret). */
export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

/** What the invitation page shows before the invitee accepts. */
export interface InvitationPreview {
  projectName: string;
  role: MemberRole;
  email: string;
  invitedBy: string | null;
}

// A week is enough to read the mail after a trip; a forgotten link then stops working by itself.
const lifetimeMs = 7 * 24 * 60 * 60 * 1000;
// Pending invitations per project: enough for any team, too few to turn the form into a mail cannon.
const maxPending = 50;

export const invalidInvitationMessage =
  "This invitation is invalid, has expired, was revoked or was already used.";
const otherAddressMessage =
  "This invitation was sent to another email address. Log in with the account of that address to accept it.";

const inviteInput = z.object({ email, role: z.enum(["OWNER", "ADMIN", "MEMBER"]) });

/**
 * Membership by consent: managers invite an email address with a role, the invitee accepts through
 * the emailed link (signing up first if they have no account). Nobody becomes a member otherwise.
 */
export function createInvitationsService(deps: {
  db: Db;
  access: AccessService;
  mailer: Mailer;
  config: Config;
  throttle: Throttle;
  changes: ProjectChanges;
}) {
  const { db, access, changes, mailer, config, throttle } = deps;

  // A usable invitation for the secret, or undefined (unknown, spent, revoked or expired alike).
  async function usable(token: string): Promise<InvitationRow | undefined> {
    if (typeof token !== "string" || token.length === 0 || token.length > 100) return undefined;
    const row = await invitationsRepository.findByHash(db, hashSecret(token));
    if (!row || row.accepted_at || row.revoked_at || row.expires_at <= nowIso()) return undefined;
    return row;
  }

  return {
    /**
     * Invites an address with a role and mails it the link (managers; an OWNER invitation needs an
     * OWNER). A new invitation to the same address replaces the pending one. Returns the link too,
     * for the operator's CLI; the dashboard never shows it.
     */
    async invite(
      actor: Actor,
      projectId: string,
      input: { email: string; role: string },
    ): Promise<{ invitation: Invitation; link: string }> {
      const data = parseInput(inviteInput, input);
      const normalized = data.email.toLowerCase();
      const token = randomSecret();
      const now = new Date();
      const row = await inTransaction(db, actor, async (trx) => {
        const standing = await lockedStanding(trx, actor, projectId);
        authorizeMembershipChange(standing, { from: undefined, to: data.role });
        const existing = await userLookup.byEmail(trx, normalized);
        if (existing && (await projectsRepository.findMember(trx, projectId, existing.id))) {
          throw new AppError(ErrorCode.CONFLICT, "This person is already a member", {
            fieldErrors: [{ field: ["email"], message: "is already a member of the project" }],
          });
        }
        await invitationsRepository.revokePendingFor(trx, projectId, normalized, now.toISOString());
        if (
          (await invitationsRepository.listPending(trx, projectId, now.toISOString())).length >= maxPending
        ) {
          throw new AppError(
            ErrorCode.CONFLICT,
            `A project can have at most ${maxPending} pending invitations`,
          );
        }
        // Last, so a refused invitation does not use up the recipient's mail budget.
        if (!(await throttle.take([{ rule: throttleRules.mailRecipient, key: normalized }]))) {
          throw new AppError(
            ErrorCode.RATE_LIMITED,
            "Too many emails went to this address. Try again in an hour.",
          );
        }
        const invitation: InvitationRow = {
          id: newId(),
          project_id: projectId,
          email: data.email,
          email_normalized: normalized,
          role: data.role,
          token_hash: hashSecret(token),
          invited_by: actor.kind === "user" ? actor.userId : null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + lifetimeMs).toISOString(),
          accepted_at: null,
          accepted_by: null,
          revoked_at: null,
        };
        await invitationsRepository.insert(trx, invitation);
        await changes.event(trx, actor, {
          projectId,
          type: "invitation.created",
          object: { typename: "Invitation", id: invitation.id },
          changed: ["email", "role"],
          values: { email: invitation.email, role: invitation.role },
        });
        return invitation;
      });
      const project = await projectsRepository.findById(db, projectId);
      const inviter = actor.kind === "user" ? await userLookup.byId(db, actor.userId) : undefined;
      const link = `${config.baseUrl}/invite?token=${token}`;
      const role = data.role.toLowerCase();
      await mailer.send({
        to: data.email,
        subject: `You are invited to ${project?.name ?? "a project"} on Eventgraph`,
        text: `Hello,\n\n${inviter ? inviter.name : "The operator"} invited you to join “${project?.name}” on Eventgraph as ${role === "member" ? "a" : "an"} ${role}.\n\nOpen this link within 7 days to accept (you can create an account there if you have none):\n\n${link}\n\nIf you do not want to join, ignore this email: nothing happens without your answer.\n`,
        link,
      });
      return { invitation: present(row, inviter?.name ?? null), link };
    },

    /** Pending invitations of a project, oldest first; any member may see them. */
    async listPending(actor: Actor, projectId: string): Promise<Invitation[]> {
      authorize(await access.require(actor, projectId), "members.view");
      const rows = await invitationsRepository.listPending(db, projectId, nowIso());
      return rows.map((row) => present(row, row.inviter_name));
    },

    /** Revokes a pending invitation (managers; an OWNER invitation needs an OWNER). */
    async revoke(actor: Actor, projectId: string, invitationId: string): Promise<void> {
      await inTransaction(db, actor, async (trx) => {
        const standing = await lockedStanding(trx, actor, projectId);
        const pending = await invitationsRepository.listPending(trx, projectId, nowIso());
        const row = pending.find((r) => r.id === invitationId);
        if (!row) throw notFound("Invitation");
        authorizeMembershipChange(standing, { from: undefined, to: row.role });
        await invitationsRepository.revoke(trx, projectId, invitationId, nowIso());
        await changes.event(trx, actor, {
          projectId,
          type: "invitation.revoked",
          object: { typename: "Invitation", id: invitationId },
          values: { email: row.email, role: row.role },
        });
      });
    },

    /** What the link's page shows, or undefined when the link cannot be used. */
    async preview(token: string): Promise<InvitationPreview | undefined> {
      const row = await usable(token);
      if (!row) return undefined;
      const project = await projectsRepository.findById(db, row.project_id);
      const inviter = row.invited_by ? await userLookup.byId(db, row.invited_by) : undefined;
      if (!project) return undefined;
      return {
        projectName: project.name,
        role: row.role,
        email: row.email,
        invitedBy: inviter?.name ?? null,
      };
    },

    /**
     * Accepts an invitation as the signed-in user, whose account must have the invited address. The
     * inviter must still be allowed to grant the role: an admin removed since cannot add anyone.
     * Each link works once. Resolves to the project's id.
     */
    async accept(userId: string, token: string, actor: Actor = { kind: "user", userId }): Promise<string> {
      const found = await usable(token);
      if (!found) throw new AppError(ErrorCode.BAD_USER_INPUT, invalidInvitationMessage);
      const user = await userLookup.byId(db, userId);
      if (!user) throw notFound("User");
      if (user.email_normalized !== found.email_normalized) {
        throw new AppError(ErrorCode.FORBIDDEN, otherAddressMessage);
      }
      const projectId = found.project_id;
      await inTransaction(db, actor, async (trx) => {
        await projectsRepository.lockMembership(trx, projectId);
        if (found.invited_by) {
          const role = (await projectsRepository.findMember(trx, projectId, found.invited_by))?.role;
          const inviter = { actor: { kind: "user", userId: found.invited_by } as const, role };
          try {
            authorizeMembershipChange(inviter, { from: undefined, to: found.role });
          } catch {
            throw new AppError(ErrorCode.BAD_USER_INPUT, invalidInvitationMessage);
          }
        }
        if (!(await invitationsRepository.markAccepted(trx, found.id, userId, nowIso()))) {
          throw new AppError(ErrorCode.BAD_USER_INPUT, invalidInvitationMessage);
        }
        // Already a member (invited twice, or added meanwhile): the role stays as it is.
        if (await projectsRepository.findMember(trx, projectId, userId)) return;
        await projectsRepository.upsertMember(trx, {
          project_id: projectId,
          user_id: userId,
          role: found.role,
          created_at: nowIso(),
        });
        await changes.event(trx, actor, {
          projectId,
          type: "member.added",
          object: { typename: "Member", id: userId },
          changed: ["role"],
          values: { role: found.role, invitation: found.id },
        });
      });
      return projectId;
    },
  };
}

function present(row: InvitationRow, inviterName: string | null): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: inviterName,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
