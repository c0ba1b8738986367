import { z } from "zod";
import type { Db } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { nowIso } from "../../shared/time.js";
import { email, parseInput, requiredText } from "../../shared/validation.js";
import { dummyPasswordHash, hashPassword, verifyPassword } from "./passwords.js";
import { type UserRow, usersRepository } from "./users.repository.js";

/** What leaves the accounts module about a user: never the password hash. */
export interface User {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  createdAt: string;
}

export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    emailVerified: row.email_verified_at !== null,
    createdAt: row.created_at,
  };
}

/** The password rule for sign-up and reset. */
/**
 * User lookups for other modules, usable inside their transactions (the invitations service reads
 * the invitee's account while it holds the project's lock). Rows stay inside the server: present
 * them with `presentUser` before they leave.
 */
export const userLookup = {
  byId: (db: Db, id: string): Promise<UserRow | undefined> => usersRepository.findById(db, id),
  /**
   * Deletes an account's row (its erasure's last step, modules/account-erasure): sessions, email
   * links and memberships go with it (ON DELETE CASCADE).
   */
  delete: (db: Db, id: string): Promise<void> => usersRepository.delete(db, id),
  byEmail: (db: Db, address: string): Promise<UserRow | undefined> =>
    usersRepository.findByEmail(db, address),
};

export const passwordRule = z
  .string()
  .min(10, "must be at least 10 characters")
  .max(200, "must be at most 200 characters");

const signUpInput = z.object({ email, name: requiredText(120), password: passwordRule });

/** Accounts: sign-up, credentials and email verification state. */
export function createUsersService(db: Db, passwordCost: number) {
  return {
    /** Creates a user; the email is unique regardless of case. */
    async create(input: { email: string; name: string; password: string }): Promise<User> {
      const data = parseInput(signUpInput, input);
      if (await usersRepository.findByEmail(db, data.email)) {
        throw new AppError(ErrorCode.CONFLICT, "An account with this email already exists", {
          fieldErrors: [{ field: ["email"], message: "is already registered" }],
        });
      }
      const now = nowIso();
      const row: UserRow = {
        id: newId(),
        email: data.email,
        email_normalized: data.email.toLowerCase(),
        name: data.name,
        password_hash: await hashPassword(data.password, passwordCost),
        email_verified_at: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await usersRepository.insert(db, row);
      } catch (error) {
        // Two sign-ups racing for the same email: the unique index decides.
        if (await usersRepository.findByEmail(db, data.email)) {
          throw new AppError(ErrorCode.CONFLICT, "An account with this email already exists");
        }
        throw error;
      }
      return presentUser(row);
    },

    async getById(id: string): Promise<User> {
      const row = await usersRepository.findById(db, id);
      if (!row) throw notFound("User");
      return presentUser(row);
    },

    async findByEmail(address: string): Promise<User | undefined> {
      const row = await usersRepository.findByEmail(db, address);
      return row && presentUser(row);
    },

    /**
     * Returns the user for a correct email and password, otherwise undefined. Unknown emails cost
     * the same time as wrong passwords, so the answer does not reveal which accounts exist.
     */
    async authenticate(address: string, candidate: string): Promise<User | undefined> {
      const row = await usersRepository.findByEmail(db, address);
      const ok = await verifyPassword(
        candidate,
        row?.password_hash ?? (await dummyPasswordHash(passwordCost)),
      );
      return row && ok ? presentUser(row) : undefined;
    },

    /** Marks the email as verified; verifying twice keeps the first time. */
    async markEmailVerified(userId: string): Promise<User> {
      const row = await usersRepository.findById(db, userId);
      if (!row) throw notFound("User");
      if (!row.email_verified_at) {
        const now = nowIso();
        await usersRepository.update(db, userId, { email_verified_at: now, updated_at: now });
      }
      return this.getById(userId);
    },

    /** Replaces the password (reset flow); the caller ends the user's other sessions. */
    async setPassword(userId: string, newPassword: string): Promise<void> {
      const value = parseInput(z.object({ password: passwordRule }), { password: newPassword }).password;
      await usersRepository.update(db, userId, {
        password_hash: await hashPassword(value, passwordCost),
        updated_at: nowIso(),
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
