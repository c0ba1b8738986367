import { z } from "zod";
import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import { AppError, ErrorCode } from "../../errors.js";
import { addressKey } from "../../shared/client-address.js";
import { parseInput, searchText } from "../../shared/validation.js";
import { isEmailTokenUsable, issueEmailToken, redeemEmailToken } from "./email-links.js";
import type { Mailer } from "./mailer.js";
import type { SessionClient, SessionsService } from "./sessions.service.js";
import { type Throttle, type ThrottleHit, takeMail, throttleRules, tooManyMailsMessage } from "./throttle.js";
import { passwordRule, type User, type UsersService } from "./users.service.js";

/** The one answer for an unknown email and a wrong password, so accounts cannot be probed. */
const invalidCredentialsMessage = "The email or password is incorrect.";
const tooManyAttemptsMessage = "Too many failed attempts. Wait 15 minutes and try again.";

/** Why a password flow is refused when OIDC_ONLY is set; the pages show the same sentence. */
export function passwordsOffMessage(providerName: string): string {
  return `Passwords are turned off on this server: log in with ${providerName} instead.`;
}

const loginInput = z.object({
  // Not the full email rule: a mistyped address must answer "incorrect", not reveal the rule.
  email: searchText(254).toLowerCase(),
  password: z.string().min(1, "must not be empty").max(200),
});

/** What the account flows (sign-up, log-in, reset, the account page) are built from. */
export interface AccountFlowDeps {
  db: Db;
  config: Config;
  users: UsersService;
  sessions: SessionsService;
  mailer: Mailer;
  throttle: Throttle;
}

/**
 * Account flows of the dashboard: sign-up with email verification, login with throttling,
 * password reset. Sessions and emails are delegated to their own services.
 */
export function createAuthService(deps: AccountFlowDeps) {
  const { db, config, users, sessions, mailer, throttle } = deps;

  // OIDC_ONLY: every password flow is refused here, whichever page, form or script calls it.
  function refuseWhenPasswordsOff(): void {
    if (config.oidc?.only) throw new AppError(ErrorCode.FORBIDDEN, passwordsOffMessage(config.oidc.name));
  }

  async function sendVerification(user: User): Promise<void> {
    const token = await issueEmailToken(db, user.id, "verify_email");
    const link = `${config.baseUrl}/verify-email?token=${token}`;
    await mailer.send({
      to: user.email,
      subject: "Confirm your email for Eventgraph",
      text: `Hello ${user.name},\n\nconfirm your email address by opening this link within 48 hours:\n\n${link}\n\nIf you did not sign up for Eventgraph, ignore this email.\n`,
      link,
    });
  }

  return {
    /** Creates the account and sends the verification link; throttled per client address and recipient. */
    async signUp(input: { email: string; name: string; password: string }, clientIp: string): Promise<User> {
      refuseWhenPasswordsOff();
      const hits: ThrottleHit[] = [{ rule: throttleRules.signupIp, key: addressKey(clientIp) }];
      if (!(await throttle.take(hits))) throw new AppError(ErrorCode.RATE_LIMITED, tooManyMailsMessage);
      await takeMail(throttle, input.email, clientIp);
      const user = await users.create(input);
      await sendVerification(user);
      return user;
    },

    /**
     * Checks the credentials and starts a new session (a fresh id at every login, so a session id
     * planted before login is worthless). Unknown email and wrong password fail alike.
     */
    async logIn(input: { email: string; password: string }, clientIp: string, userAgent?: string) {
      refuseWhenPasswordsOff();
      const data = parseInput(loginInput, input);
      const account: ThrottleHit = { rule: throttleRules.loginEmail, key: data.email };
      const address: ThrottleHit = { rule: throttleRules.loginIp, key: addressKey(clientIp) };
      // Counted before the password is checked, in the same step as the limit: parallel guesses
      // cannot all pass a check that none of them has been recorded against yet.
      if (!(await throttle.take([account, address]))) {
        throw new AppError(ErrorCode.RATE_LIMITED, tooManyAttemptsMessage);
      }
      const user = await users.authenticate(data.email, data.password);
      if (!user) throw new AppError(ErrorCode.UNAUTHENTICATED, invalidCredentialsMessage);
      // Only failures should use up the budgets: the account starts afresh, the address gets its try back.
      await throttle.clear(account);
      await throttle.giveBack(address);
      return sessions.start(user.id, { ip: clientIp, userAgent });
    },

    /** Sends a new verification link (the previous one stops working); no-op when already verified. */
    async resendVerification(userId: string, clientIp: string): Promise<void> {
      const user = await users.getById(userId);
      if (user.emailVerified) return;
      await takeMail(throttle, user.email, clientIp);
      await sendVerification(user);
    },

    /** Verifies the email of the link's owner; each link works once. */
    async verifyEmail(token: string): Promise<User> {
      const { user_id: userId } = await redeemEmailToken(db, token, "verify_email");
      return users.markEmailVerified(userId);
    },

    /** Sends a reset link when the account exists; the caller shows the same answer either way. */
    async requestPasswordReset(address: string, clientIp: string): Promise<void> {
      refuseWhenPasswordsOff();
      // Counted whether or not the account exists, so the throttle reveals nothing either.
      await takeMail(throttle, address, clientIp);
      const user = await users.findByEmail(address.trim());
      if (!user) return;
      const token = await issueEmailToken(db, user.id, "reset_password");
      const link = `${config.baseUrl}/reset-password?token=${token}`;
      await mailer.send({
        to: user.email,
        subject: "Reset your Eventgraph password",
        text: `Hello ${user.name},\n\nchoose a new password by opening this link within one hour:\n\n${link}\n\nIf you did not ask for this, ignore this email: your password stays as it is.\n`,
        link,
      });
    },

    /**
     * Sets a new password through a reset link, ends every session of the account and starts a new
     * one. The link arrived by email, so it also proves the address.
     */
    async resetPassword(token: string, password: string, client?: SessionClient) {
      refuseWhenPasswordsOff();
      // Validate the password before spending the link, so a typo does not burn it.
      parseInput(z.object({ password: passwordRule }), { password });
      const { user_id: userId } = await redeemEmailToken(db, token, "reset_password");
      await users.setPassword(userId, password);
      await users.markEmailVerified(userId);
      await sessions.endAllForUser(userId);
      return sessions.start(userId, client);
    },

    /** Whether a reset link can still be used (the form is shown only then). */
    async isResetTokenUsable(token: string): Promise<boolean> {
      return isEmailTokenUsable(db, token, "reset_password");
    },
  };
}
