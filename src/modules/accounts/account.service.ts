import { z } from "zod";
import { isUniqueViolation } from "../../db/constraint-errors.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { nowIso } from "../../shared/time.js";
import { email, parseInput, requiredText } from "../../shared/validation.js";
import type { Actor } from "../access/actor.js";
import type { AccountFlowDeps } from "./auth.service.js";
import { issueEmailToken, redeemEmailToken } from "./email-links.js";
import { emailTokensRepository } from "./email-tokens.repository.js";
import { verifyPassword } from "./passwords.js";
import { type ThrottleHit, takeMail, throttleRules } from "./throttle.js";
import { usersRepository } from "./users.repository.js";
import { passwordRule, presentUser, type User } from "./users.service.js";

const tooManyGuessesMessage = "Too many wrong passwords. Wait 15 minutes and try again.";

const nameInput = z.object({ name: requiredText(120) });
const emailChangeInput = z.object({ newEmail: email, currentPassword: z.string().max(200) });
const passwordChangeInput = z.object({ currentPassword: z.string().max(200), newPassword: passwordRule });
const deleteInput = z.object({ currentPassword: z.string().max(200) });

/**
 * The signed-in user's own account: name, email (re-verified before it takes effect), password,
 * sessions and deletion. Changing the email or password and deleting ask for the current password,
 * so a session left open on a shared computer cannot take the account over; those checks are
 * throttled per account (throttleRules.reauthUser), and every email one can trigger is throttled
 * per recipient and client address like sign-up's.
 */
export function createAccountService(
  deps: AccountFlowDeps & {
    /** Erases the account (modules/account-erasure); refuses while they solely own a project. */
    eraseAccount: (actor: Actor, userId: string) => Promise<unknown>;
  },
) {
  const { db, config, users, sessions, mailer, throttle } = deps;

  // Counted before the check, like a login: parallel guesses cannot all slip under the limit.
  async function checkPassword(userId: string, candidate: string): Promise<void> {
    const hit: ThrottleHit = { rule: throttleRules.reauthUser, key: userId };
    if (!(await throttle.take([hit]))) throw new AppError(ErrorCode.RATE_LIMITED, tooManyGuessesMessage);
    const row = await usersRepository.findById(db, userId);
    if (!row) throw notFound("User");
    if (!(await verifyPassword(candidate, row.password_hash))) {
      throw badInput([{ field: ["currentPassword"], message: "is wrong" }]);
    }
    await throttle.giveBack(hit);
  }

  return {
    /** Changes the display name. */
    async updateName(userId: string, input: { name: string }): Promise<User> {
      const { name } = parseInput(nameInput, input);
      await usersRepository.update(db, userId, { name, updated_at: nowIso() });
      return users.getById(userId);
    },

    /** The address a pending email change waits to confirm, if any. */
    async pendingEmail(userId: string): Promise<string | null> {
      return (
        (await emailTokensRepository.findPending(db, userId, "change_email", nowIso()))?.new_email ?? null
      );
    },

    /**
     * Sends a confirmation link to the new address; the account keeps its current email until the
     * link is opened. An address another account uses gets no mail, and the answer is the same, so
     * this form cannot tell which addresses have accounts.
     */
    async requestEmailChange(
      userId: string,
      input: { newEmail: string; currentPassword: string },
      clientIp: string,
    ): Promise<void> {
      const data = parseInput(emailChangeInput, input);
      const user = await users.getById(userId);
      if (data.newEmail.toLowerCase() === user.email.toLowerCase()) {
        throw badInput([{ field: ["newEmail"], message: "is already your email address" }]);
      }
      await checkPassword(userId, data.currentPassword);
      await takeMail(throttle, data.newEmail, clientIp);
      if (await usersRepository.findByEmail(db, data.newEmail)) return;
      const token = await issueEmailToken(db, userId, "change_email", data.newEmail);
      const link = `${config.baseUrl}/account/email/confirm?token=${token}`;
      await mailer.send({
        to: data.newEmail,
        subject: "Confirm your new email for Eventgraph",
        text: `Hello ${user.name},\n\nto use this address for your Eventgraph account instead of ${user.email}, open this link within 24 hours:\n\n${link}\n\nIf you did not ask for this, ignore this email: nothing changes.\n`,
        link,
      });
    },

    /**
     * Makes the confirmed address the account's email (verified, since the link reached it) and tells
     * the previous address, so a takeover does not go unnoticed. Links mailed to the previous address
     * (a password reset, a verification) stop working, and every session of the account ends but
     * `keepSessionId` (the browser that confirmed, when it is logged in as this account): whoever
     * held the old mailbox or a session must not keep the account past the change.
     */
    async confirmEmailChange(token: string, keepSessionId?: string): Promise<User> {
      const row = await redeemEmailToken(db, token, "change_email");
      const before = await usersRepository.findById(db, row.user_id);
      if (!before || !row.new_email) throw notFound("User");
      const taken = await usersRepository.findByEmail(db, row.new_email);
      const takenMessage = "Another account uses this address now, so it cannot become yours.";
      if (taken && taken.id !== before.id) throw new AppError(ErrorCode.CONFLICT, takenMessage);
      const now = nowIso();
      try {
        await usersRepository.update(db, before.id, {
          email: row.new_email,
          email_normalized: row.new_email.toLowerCase(),
          email_verified_at: now,
          updated_at: now,
        });
      } catch (error) {
        // A sign-up with this address between the check and the update: the unique index decides.
        if (isUniqueViolation(error)) throw new AppError(ErrorCode.CONFLICT, takenMessage);
        throw error;
      }
      for (const purpose of ["reset_password", "verify_email"] as const) {
        await emailTokensRepository.retireUnused(db, before.id, purpose, now);
      }
      await sessions.endAllForUser(before.id, keepSessionId);
      await mailer.send({
        to: before.email,
        subject: "Your Eventgraph email was changed",
        text: `Hello ${before.name},\n\nyour Eventgraph account now uses ${row.new_email} instead of this address.\n\nIf you did not do this, reset your password at ${config.baseUrl}/forgot-password and tell your operator.\n`,
        link: `${config.baseUrl}/forgot-password`,
      });
      return presentUser({ ...before, email: row.new_email, email_verified_at: now });
    },

    /** Sets a new password after checking the current one; every other session of the account ends. */
    async changePassword(
      userId: string,
      input: { currentPassword: string; newPassword: string },
      keepSessionId: string,
    ): Promise<void> {
      const data = parseInput(passwordChangeInput, input);
      await checkPassword(userId, data.currentPassword);
      await users.setPassword(userId, data.newPassword);
      await sessions.endAllForUser(userId, keepSessionId);
      const user = await users.getById(userId);
      await mailer.send({
        to: user.email,
        subject: "Your Eventgraph password was changed",
        text: `Hello ${user.name},\n\nthe password of your Eventgraph account was changed and your other sessions were logged out.\n\nIf you did not do this, reset your password at ${config.baseUrl}/forgot-password.\n`,
        link: `${config.baseUrl}/forgot-password`,
      });
    },

    /**
     * Deletes the account after checking the password: erases it, as the operator's
     * `eventgraph accounts erase` does. Refused (CONFLICT, naming the projects) while the user is
     * the only owner of a real project.
     */
    async deleteAccount(
      userId: string,
      input: { currentPassword: string },
      /** The user, bound to their request's origin (the audit log records where they erased from). */
      actor: Actor = { kind: "user", userId },
    ): Promise<void> {
      const data = parseInput(deleteInput, input);
      await checkPassword(userId, data.currentPassword);
      await deps.eraseAccount(actor, userId);
    },
  };
}
