import type { Tx } from "../../db/database.js";
import type { ErasedPerson } from "../../shared/erasure.js";
import { nowIso } from "../../shared/time.js";
import { bulkRepository as repo } from "./bulk.repository.js";

/** Why a running operation stopped when an attendee it had read was erased. */
const erasedWhileRunning = "An attendee it may have read was erased meanwhile; start it again";

/**
 * Takes an erased attendee out of bulk results: every finished result of the project that may name
 * them is deleted whole (a JSON line cut out would leave a result that no longer matches its count)
 * and its operation EXPIRED; every waiting or running one FAILED with the reason, since a page it
 * read but has not written yet may hold them (its runner's next chunk is refused, see `addChunk`).
 * The rows are ended before the chunks are deleted, so a chunk racing in is either refused or
 * deleted. The app runs it again and gets the erased row as it now is. (On PostgreSQL, a job started
 * while the erasure's transaction is open can still read the row as it was before: that window is
 * the transaction's length.)
 */
export async function forgetBulkResultsOf(trx: Tx, person: ErasedPerson): Promise<void> {
  const ids = [
    ...new Set([...(await repo.open(trx, person.projectId)), ...(await repo.mentioning(trx, person))]),
  ];
  await repo.withdraw(trx, ids, nowIso(), erasedWhileRunning);
  await repo.deleteChunks(trx, ids);
}
