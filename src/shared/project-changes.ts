/**
 * Announces that a project's data changed. Every service write awaits `notify` after its
 * transaction commits: it first records the change where every process sees it (the project's
 * data version in the database, which the response cache checks on each hit), then tells local
 * listeners (the cache drops its entries; with Redis, other processes are told to drop theirs too).
 */
export class ProjectChanges {
  private readonly listeners = new Set<(projectId: string) => void>();

  /** `record` persists the change; tests of the listeners alone may leave it out. */
  constructor(private readonly record: (projectId: string) => Promise<void> = async () => {}) {}

  /** Records that `projectId` changed, then tells every listener. */
  async notify(projectId: string): Promise<void> {
    await this.record(projectId);
    for (const listener of this.listeners) listener(projectId);
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
