import type { Db, Tx } from "../db/database.js";
import { inTransaction } from "../db/transaction.js";

/**
 * Announces that a project's data changed, in two halves. `record` persists the change where every
 * process sees it (the project's data version, which the response cache checks on each hit) INSIDE
 * the write's transaction: the data and its version commit together, so no crash between the two
 * can leave another process serving a stale cached answer. `announce` then tells local listeners
 * (the cache drops its entries; with Redis, other processes are told to drop theirs too) after the
 * commit, when what they re-read is visible.
 */
export class ProjectChanges {
  private readonly listeners = new Set<(projectId: string) => void>();

  /** `persist` bumps the data version within the given transaction or database. */
  constructor(private readonly persist: (db: Db | Tx, projectId: string) => Promise<void> = async () => {}) {}

  /**
   * Runs `work` in one transaction (see inTransaction) that also records a change of `projectId`,
   * then announces it once committed.
   */
  async write<T>(
    db: Db,
    actor: object | undefined,
    projectId: string,
    work: (trx: Tx) => Promise<T>,
  ): Promise<T> {
    const result = await inTransaction(db, actor, async (trx) => {
      const value = await work(trx);
      await this.record(trx, projectId);
      return value;
    });
    this.announce(projectId);
    return result;
  }

  /** Records changes of `projectIds` inside the caller's transaction (when they are known only there). */
  async record(trx: Tx, ...projectIds: string[]): Promise<void> {
    for (const projectId of new Set(projectIds)) await this.persist(trx, projectId);
  }

  /** Tells every listener, after the transaction that recorded the changes committed. */
  announce(...projectIds: string[]): void {
    for (const projectId of new Set(projectIds)) {
      for (const listener of this.listeners) listener(projectId);
    }
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
