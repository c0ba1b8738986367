/**
 * Announces that a project's data changed. Every service write calls `notify` after its
 * transaction commits; the API's response cache listens to drop what it holds for the project
 * (and, with Redis configured, relays the signal to the other processes).
 */
export class ProjectChanges {
  private readonly listeners = new Set<(projectId: string) => void>();

  /** Tells every listener that `projectId` changed. */
  notify(projectId: string): void {
    for (const listener of this.listeners) listener(projectId);
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
