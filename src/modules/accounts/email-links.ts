import type { Db } from "../../db/database.js";
import { AppError, ErrorCode } from "../../errors.js";
import { nowIso } from "../../shared/time.js";
import {
  type EmailTokenPurpose,
  type EmailTokenRow,
  emailTokensRepository,
} from "./email-tokens.repository.js";
import { hashSecret, randomSecret } from "./sessions.service.js";

const tokenLifetimeMs: Record<EmailTokenPurpose, number> = {
  verify_email: 48 * 60 * 60 * 1000,
  // A reset link grants the account: keep its window short.
  reset_password: 60 * 60 * 1000,
  change_email: 24 * 60 * 60 * 1000,
};

const invalidLinkMessage = "This link is invalid, has expired or was already used.";

/**
 * Issues a one-time link secret for a user and purpose (only its hash is stored); the user's earlier
 * unused links of that purpose stop working, so only the newest email counts. `newEmail` is the
 * address a `change_email` link confirms.
 */
export async function issueEmailToken(
  db: Db,
  userId: string,
  purpose: EmailTokenPurpose,
  newEmail: string | null = null,
): Promise<string> {
  const token = randomSecret();
  const now = new Date();
  // Bare: email link secrets belong to no project; each is checked against the database when used.
  await db.transaction().execute(async (trx) => {
    await emailTokensRepository.retireUnused(trx, userId, purpose, now.toISOString());
    await emailTokensRepository.insert(trx, {
      token_hash: hashSecret(token),
      user_id: userId,
      purpose,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + tokenLifetimeMs[purpose]).toISOString(),
      used_at: null,
      new_email: newEmail,
    });
  });
  return token;
}

/** Spends a one-time link; the conditional update makes a double click count once. */
export async function redeemEmailToken(
  db: Db,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<EmailTokenRow> {
  const tokenHash = hashSecret(token);
  const row = await emailTokensRepository.findByHash(db, tokenHash, purpose);
  const now = nowIso();
  if (!row || row.used_at || row.expires_at <= now) {
    throw new AppError(ErrorCode.BAD_USER_INPUT, invalidLinkMessage);
  }
  if (!(await emailTokensRepository.markUsed(db, tokenHash, now))) {
    throw new AppError(ErrorCode.BAD_USER_INPUT, invalidLinkMessage);
  }
  return row;
}

/** Whether a link can still be used (a form behind it is shown only then). */
export async function isEmailTokenUsable(
  db: Db,
  token: string,
  purpose: EmailTokenPurpose,
): Promise<boolean> {
  const row = await emailTokensRepository.findByHash(db, hashSecret(token), purpose);
  return Boolean(row && !row.used_at && row.expires_at > nowIso());
}
