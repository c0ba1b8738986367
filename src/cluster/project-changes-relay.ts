import type { ResponseCache } from "../graphql/cache/response-cache.js";
import { allAreas } from "../shared/data-areas.js";
import type { ProjectChanges } from "../shared/project-changes.js";
import type { Signals } from "./signals.js";

/**
 * Makes every project write invalidate the response cache on every process (only the answers that
 * read the areas written): a local change is
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
  // The payload is "<project id>:<area mask>"; a bare project id (an older process) means every area.
  const offSignal = signals.subscribe("project-changed", (payload) => {
    const [projectId = "", mask] = payload.split(":");
    cache.invalidateProject(projectId, mask === undefined ? allAreas : Number(mask) || allAreas);
  });
  const offChanges = changes.subscribe((projectId, areas) => {
    void signals.publish("project-changed", `${projectId}:${areas}`);
  });
  const offStatus = signals.onStatus((status) => (status === "down" ? cache.suspend() : cache.resume()));
  if (signals.status === "down") cache.suspend();
  return () => {
    offSignal();
    offChanges();
    offStatus();
  };
}
