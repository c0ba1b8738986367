import { z } from "zod";
import type { Db } from "../../../db/database.js";
import { inTransaction } from "../../../db/transaction.js";
import { AppError, ErrorCode } from "../../../errors.js";
import type { Logger } from "../../../logger.js";
import { newId } from "../../../shared/ids.js";
import { nowIso } from "../../../shared/time.js";
import { email as emailRule, requiredText } from "../../../shared/validation.js";
import { emailTokensRepository } from "../email-tokens.repository.js";
import { hashPassword } from "../passwords.js";
import { sessionsRepository } from "../sessions.repository.js";
import type { SessionClient, SessionsService } from "../sessions.service.js";
import { randomSecret } from "../sessions.service.js";
import { type UserRow, usersRepository } from "../users.repository.js";
import type { ProviderIdentity } from "./oidc-client.js";

const unverifiedMessage =
  "Your identity provider has not confirmed that this email address is yours, so it cannot log you in here. Ask its administrator to verify the address.";
const noEmailMessage =
  "Your identity provider did not tell us your email address. Ask its administrator to release the email claim to this service.";

/** The name a new account gets: the provider's, else the email's local part. */
function nameFor(identity: ProviderIdentity, address: string): string {
  const parsed = requiredText(120).safeParse(identity.name ?? "");
  return parsed.success ? parsed.data : (address.split("@")[0] ?? address).slice(0, 120);
}

/** A password nobody knows: an account made through the provider logs in through it (or a reset link). */
async function unusablePasswordHash(passwordCost: number): Promise<string> {
  return hashPassword(randomSecret(), passwordCost);
}

/**
 * Log-in through an OpenID Connect provider: the provider vouches for an email address, and the
 * account with that address is the one that logs in (created on the first log-in). Matching is by
 * verified email only (docs/operations.md, "Single sign-on", says why and what that trusts).
 */
export function createSsoService(deps: {
  db: Db;
  sessions: SessionsService;
  logger: Logger;
  /** scrypt's N for the unusable password (Config.passwordCost). */
  passwordCost: number;
}) {
  const { db, sessions, logger, passwordCost } = deps;

  async function create(address: string, identity: ProviderIdentity): Promise<UserRow | undefined> {
    const now = nowIso();
    const row: UserRow = {
      id: newId(),
      email: address,
      email_normalized: address.toLowerCase(),
      name: nameFor(identity, address),
      password_hash: await unusablePasswordHash(passwordCost),
      email_verified_at: now,
      created_at: now,
      updated_at: now,
    };
    try {
      await usersRepository.insert(db, row);
    } catch (error) {
      // Two first log-ins (or a sign-up) racing for the address: the unique index decides, the loser links.
      if (await usersRepository.findByEmail(db, address)) return undefined;
      throw error;
    }
    logger.info({ userId: row.id, subject: identity.subject }, "Account created through single sign-on");
    return row;
  }

  // An account whose address was never verified may have been opened by someone else in the owner's
  // name, waiting for this moment (a "pre-hijacked" account): its password, sessions and pending
  // links (an email change to the squatter's own address above all) are not the owner's, so all of
  // them go, in one transaction, before the owner gets in.
  async function claim(row: UserRow): Promise<void> {
    const now = nowIso();
    const passwordHash = await unusablePasswordHash(passwordCost);
    await inTransaction(db, undefined, async (trx) => {
      await usersRepository.update(trx, row.id, {
        password_hash: passwordHash,
        email_verified_at: now,
        updated_at: now,
      });
      for (const purpose of ["change_email", "reset_password", "verify_email"] as const)
        await emailTokensRepository.retireUnused(trx, row.id, purpose, now);
      await sessionsRepository.deleteForUser(trx, row.id);
    });
    logger.info(
      { userId: row.id },
      "Unverified account claimed through single sign-on: password, links and sessions reset",
    );
  }

  return {
    /**
     * Finds (or creates) the account of the provider's verified email and starts a session for it.
     * Refused (FORBIDDEN) when the provider sends no email or does not say it is verified.
     */
    async logIn(identity: ProviderIdentity, client: SessionClient): Promise<{ cookieValue: string }> {
      if (!identity.emailVerified) throw new AppError(ErrorCode.FORBIDDEN, unverifiedMessage);
      const parsed = z.object({ email: emailRule }).safeParse({ email: identity.email });
      if (!parsed.success) throw new AppError(ErrorCode.FORBIDDEN, noEmailMessage);
      const address = parsed.data.email;
      const row =
        (await usersRepository.findByEmail(db, address)) ??
        (await create(address, identity)) ??
        (await usersRepository.findByEmail(db, address));
      if (!row) throw new AppError(ErrorCode.CONFLICT, "The account changed during log-in. Try again.");
      if (!row.email_verified_at) await claim(row);
      return sessions.start(row.id, client);
    },
  };
}
