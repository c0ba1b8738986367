import type { ResponseCache } from "../graphql/cache/response-cache.js";
import type { ProjectChanges } from "../shared/project-changes.js";
import type { Signals } from "./signals.js";

/**
 * Makes every project write invalidate the response cache on every process: a local change is
 * published on `project-changed` (invalidating this process's cache before `notify` returns), and
 * each process drops what it cached for a project announced by any process. While the link to the
 * other processes is down the cache is suspended, since their invalidations could be missed.
 * Returns the function that undoes the wiring.
 */
export function connectProjectChanges(
  changes: ProjectChanges,
  signals: Signals,
  cache: ResponseCache,
): () => void {
  const offSignal = signals.subscribe("project-changed", (projectId) => cache.invalidateProject(projectId));
  const offChanges = changes.subscribe((projectId) => {
    void signals.publish("project-changed", projectId);
  });
  const offStatus = signals.onStatus((status) => (status === "down" ? cache.suspend() : cache.resume()));
  if (signals.status === "down") cache.suspend();
  return () => {
    offSignal();
    offChanges();
    offStatus();
  };
}
