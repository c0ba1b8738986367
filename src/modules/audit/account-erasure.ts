import type { Tx } from "../../db/database.js";
import { accountText, type ErasedAccount, erasedUserName, withoutPerson } from "../../shared/erasure.js";
import { newId } from "../../shared/ids.js";
import { nowIso } from "../../shared/time.js";
import { type Actor, originOf } from "../access/actor.js";
import { auditRepository } from "./audit.repository.js";

/**
 * Takes an erased account out of the audit log, in every project: the entries they wrote stay (who
 * did what, when) with "Erased user" as their actor and no client address; recorded values that
 * held their address or name (an invitation, a member's change) lose it.
 */
export async function eraseAccountFromAuditLog(
  trx: Tx,
  account: ErasedAccount,
  projectIds: readonly string[],
): Promise<void> {
  await auditRepository.forgetUser(trx, account.userId, erasedUserName);
  const text = accountText(account);
  for (const entry of await auditRepository.mentioningAccount(trx, account, projectIds)) {
    if (entry.changes === null) continue;
    const changes = withoutPerson(entry.changes, text, false);
    if (changes !== entry.changes) await auditRepository.replaceChanges(trx, entry.id, changes);
  }
}

/**
 * The log's record that an account was erased, and by whom (the operator, or the user themselves,
 * then named "Erased user"): an entry of no project, like a deleted project's tombstone, so it
 * exists even for an account that belonged to none. It names the account by its id only.
 */
export async function recordAccountErasure(trx: Tx, actor: Actor, userId: string): Promise<void> {
  const origin = originOf(actor);
  const self = actor.kind === "user" && actor.userId === userId;
  await auditRepository.insert(trx, {
    id: newId(),
    project_id: null,
    occurred_at: nowIso(),
    actor_kind: self ? "user" : "system",
    actor_id: self ? userId : null,
    actor_label: self ? erasedUserName : "Operator (CLI)",
    link_id: null,
    via: origin.via,
    ip: null,
    action: "account.erased",
    object_type: "User",
    object_id: userId,
    changes: null,
  });
}
