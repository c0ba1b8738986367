import type { Db, Tx } from "../db/database.js";
import { inTransaction } from "../db/transaction.js";
import { type AreaMask, allAreas } from "./data-areas.js";

/** Hears of a committed change to `areas` of a project's data. */
export type ChangeListener = (projectId: string, areas: AreaMask) => void;

/**
 * Announces that a project's data changed, in two halves. `record` persists the change where every
 * process sees it (the project's version counters, which the response cache checks) INSIDE the
 * write's transaction: the data and its version commit together, so no crash between the two can
 * leave another process serving a stale cached answer. `announce` then tells local listeners (the
 * cache drops its entries; with Redis, other processes are told to drop theirs too) after the
 * commit, when what they re-read is visible. A change names the areas it touched
 * (src/shared/data-areas.ts), so only the answers that read them are dropped.
 */
export class ProjectChanges {
  private readonly listeners = new Set<ChangeListener>();

  /** `persist` bumps the version counters of `areas` within the given transaction or database. */
  constructor(
    private readonly persist: (
      db: Db | Tx,
      projectId: string,
      areas: AreaMask,
    ) => Promise<void> = async () => {},
  ) {}

  /**
   * Runs `work` in one transaction (see inTransaction) that also records a change of `areas` of
   * `projectId` (all of them unless told), then announces it once committed.
   */
  async write<T>(
    db: Db,
    actor: object | undefined,
    projectId: string,
    work: (trx: Tx) => Promise<T>,
    areas: AreaMask = allAreas,
  ): Promise<T> {
    const result = await inTransaction(db, actor, async (trx) => {
      const value = await work(trx);
      await this.persist(trx, projectId, areas);
      return value;
    });
    this.notify(projectId, areas);
    return result;
  }

  /** Records changes (of every area) of `projectIds` inside the caller's transaction (when they are known only there). */
  async record(trx: Tx, ...projectIds: string[]): Promise<void> {
    for (const projectId of new Set(projectIds)) await this.persist(trx, projectId, allAreas);
  }

  /** Tells every listener, after the transaction that recorded the changes committed. */
  announce(...projectIds: string[]): void {
    for (const projectId of new Set(projectIds)) this.notify(projectId, allAreas);
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(projectId: string, areas: AreaMask): void {
    for (const listener of this.listeners) listener(projectId, areas);
  }
}
