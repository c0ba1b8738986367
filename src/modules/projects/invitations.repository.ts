import type { Selectable } from "kysely";
import type { Db } from "../../db/database.js";
import type { ProjectInvitationsTable } from "../../db/schema.js";

/** A stored invitation. */
export type InvitationRow = Selectable<ProjectInvitationsTable>;

/** SQL for project invitations; every read names the project or the secret's hash. */
export const invitationsRepository = {
  async insert(db: Db, row: InvitationRow): Promise<void> {
    await db.insertInto("project_invitations").values(row).execute();
  },

  findByHash(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
    return db
      .selectFrom("project_invitations")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .executeTakeFirst();
  },

  /** Invitations of a project still waiting for an answer (not accepted, revoked or expired), oldest first. */
  listPending(
    db: Db,
    projectId: string,
    now: string,
  ): Promise<(InvitationRow & { inviter_name: string | null })[]> {
    return db
      .selectFrom("project_invitations")
      .leftJoin("users", "users.id", "project_invitations.invited_by")
      .selectAll("project_invitations")
      .select("users.name as inviter_name")
      .where("project_invitations.project_id", "=", projectId)
      .where("project_invitations.accepted_at", "is", null)
      .where("project_invitations.revoked_at", "is", null)
      .where("project_invitations.expires_at", ">", now)
      .orderBy("project_invitations.created_at")
      .orderBy("project_invitations.id")
      .execute();
  },

  /** Ends the pending invitations of an address in a project (a new invitation replaces them). */
  async revokePendingFor(db: Db, projectId: string, emailNormalized: string, now: string): Promise<void> {
    await db
      .updateTable("project_invitations")
      .set({ revoked_at: now })
      .where("project_id", "=", projectId)
      .where("email_normalized", "=", emailNormalized)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .execute();
  },

  /** Revokes one pending invitation of the project; false when there was none. */
  async revoke(db: Db, projectId: string, id: string, now: string): Promise<boolean> {
    const result = await db
      .updateTable("project_invitations")
      .set({ revoked_at: now })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Spends an invitation; the conditional update makes a double click count once. */
  /** Deletes every invitation addressed to an erased account's address, in any project. */
  async deleteAddressedTo(db: Db, emailNormalized: string): Promise<void> {
    await db.deleteFrom("project_invitations").where("email_normalized", "=", emailNormalized).execute();
  },

  async markAccepted(db: Db, id: string, userId: string, now: string): Promise<boolean> {
    const result = await db
      .updateTable("project_invitations")
      .set({ accepted_at: now, accepted_by: userId })
      .where("id", "=", id)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};
