import type { Tx } from "../../db/database.js";
import { oauthRepository } from "./oauth.repository.js";

/**
 * An erased account's part in OAuth: the grants and codes it authorized stay (they are the
 * project's), forgetting who authorized them.
 */
export async function forgetAuthorizer(trx: Tx, userId: string): Promise<void> {
  await oauthRepository.forgetAuthorizer(trx, userId);
}
