import { hash, randomBytes } from "node:crypto";
import type { Db } from "../../db/database.js";
import { type AuthSessionRow, sessionsRepository } from "./sessions.repository.js";
import { usersRepository } from "./users.repository.js";
import { presentUser, type User } from "./users.service.js";

/** How long a dashboard session lives without being used. */
export const sessionIdleMs = 14 * 24 * 60 * 60 * 1000;
// Writing last_seen_at on every page view would turn reads into writes; once an hour is enough.
const touchEveryMs = 60 * 60 * 1000;

/** A signed-in dashboard session as the web layer needs it. */
export interface AuthSession {
  /** SHA-256 of the cookie value: the row id, safe to log. */
  id: string;
  user: User;
  /** The synchronizer token every form of this session must send back. */
  csrfToken: string;
  expiresAt: string;
}

/** Where a session is used from: shown to its owner so they can recognise it (not an authenticator). */
export interface SessionClient {
  userAgent: string | undefined;
  ip: string;
}

/** One active session as the account page lists it. */
export interface SessionInfo {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastSeenAt: string;
  /** The session this list was asked from. */
  current: boolean;
}

// Headers are attacker-chosen text: bounded before they are stored and shown.
const clip = (value: string | undefined, max: number) => (value ? value.slice(0, max) : null);

/** The SHA-256 (hex) under which a secret is stored; the secret itself never is. */
export function hashSecret(value: string): string {
  return hash("sha256", value, "hex");
}

/** A new random secret for a cookie or a link: 256 bits, URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Dashboard login sessions stored in `auth_sessions`; the cookie holds the only copy of the secret. */
export function createSessionsService(db: Db) {
  return {
    /** Starts a session for the user; returns the cookie value (shown only here) and the session. */
    async start(
      userId: string,
      client?: SessionClient,
    ): Promise<{ cookieValue: string; session: AuthSession }> {
      const user = await usersRepository.findById(db, userId);
      if (!user) throw new Error("Cannot start a session for a missing user");
      const cookieValue = randomSecret();
      const now = new Date();
      const row: AuthSessionRow = {
        id: hashSecret(cookieValue),
        user_id: userId,
        csrf_token: randomSecret(),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + sessionIdleMs).toISOString(),
        last_seen_at: now.toISOString(),
        user_agent: clip(client?.userAgent, 300),
        ip: clip(client?.ip, 64),
      };
      await sessionsRepository.deleteExpiredForUser(db, userId, row.created_at);
      await sessionsRepository.insert(db, row);
      return {
        cookieValue,
        session: {
          id: row.id,
          user: presentUser(user),
          csrfToken: row.csrf_token,
          expiresAt: row.expires_at,
        },
      };
    },

    /** The live session for a cookie value, extending its expiry; undefined when unknown or expired. */
    async resume(cookieValue: string, client?: SessionClient): Promise<AuthSession | undefined> {
      const id = hashSecret(cookieValue);
      const row = await sessionsRepository.findById(db, id);
      if (!row) return undefined;
      const now = new Date();
      if (row.expires_at <= now.toISOString()) {
        await sessionsRepository.delete(db, id);
        return undefined;
      }
      const user = await usersRepository.findById(db, row.user_id);
      if (!user) return undefined;
      let expiresAt = row.expires_at;
      if (now.getTime() - Date.parse(row.last_seen_at) > touchEveryMs) {
        expiresAt = new Date(now.getTime() + sessionIdleMs).toISOString();
        await sessionsRepository.touch(db, id, {
          last_seen_at: now.toISOString(),
          expires_at: expiresAt,
          ...(client ? { user_agent: clip(client.userAgent, 300), ip: clip(client.ip, 64) } : {}),
        });
      }
      return { id, user: presentUser(user), csrfToken: row.csrf_token, expiresAt };
    },

    /** Ends the session with this cookie value (log out). */
    async end(cookieValue: string): Promise<void> {
      await sessionsRepository.delete(db, hashSecret(cookieValue));
    },

    /** The user's live sessions, most recently used first; `currentId` marks the asking one. */
    async listForUser(userId: string, currentId: string): Promise<SessionInfo[]> {
      const rows = await sessionsRepository.listLive(db, userId, new Date().toISOString());
      return rows.map((row) => ({
        id: row.id,
        userAgent: row.user_agent,
        ip: row.ip,
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
        current: row.id === currentId,
      }));
    },

    /** Ends one session of the user (another device); false when there was none of theirs. */
    endOne(userId: string, sessionId: string): Promise<boolean> {
      return sessionsRepository.deleteOfUser(db, userId, sessionId);
    },

    /** Ends every session of the user except the one with id `keepId` (password reset). */
    async endAllForUser(userId: string, keepId?: string): Promise<void> {
      await sessionsRepository.deleteForUser(db, userId, keepId);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
