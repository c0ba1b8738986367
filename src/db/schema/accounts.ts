/*
 * Accounts: people who log in, their sessions and e-mail tokens, and the server's own secrets. The
 * database as a whole: ../schema.ts.
 */

export interface UsersTable {
  id: string;
  email: string;
  /** Lower-cased email; unique, so sign-up is case-insensitive. */
  email_normalized: string;
  name: string;
  password_hash: string;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Dashboard login sessions; `id` is the SHA-256 of the cookie value. */
export interface AuthSessionsTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  /** The browser's User-Agent header when the session was last touched (shown on the account page). */
  user_agent: string | null;
  /** The client address when the session was last touched. */
  ip: string | null;
}

/** One-time links sent by email (verification, password reset); only the hash is stored. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: "verify_email" | "reset_password" | "change_email";
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** For `change_email`: the address that replaces the account's once this link is opened. */
  new_email: string | null;
}

/** Keys the service generates for itself, shared by every process (e.g. the cookie-signing key). */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}
