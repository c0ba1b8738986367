import type { Services } from "../../services.js";
import { stampOf } from "../../shared/data-areas.js";
import type { CachedAnswer } from "./response-cache.js";

/**
 * Whether a cached answer may be served: every project it read is still at the version stamp of
 * the areas it read. One indexed read sees writes by any process, the CLI included; it is skipped
 * while the cache's epoch says no other process wrote since the last check (SQLite's
 * data_version), since this process's own writes evict at once. A stale answer is dropped; the
 * others of its project are checked on their own next hit (what changed may not concern them).
 */
export function stillCurrent(
  services: Pick<Services, "access" | "responseCache">,
  hit: CachedAnswer,
): boolean | Promise<boolean> {
  const { versions } = hit;
  if (!versions) return false;
  const epoch = services.responseCache.epoch();
  // Answered without a promise when nothing needs reading: the common case of every hit.
  if (versions.size === 0 || (epoch !== undefined && hit.checkedEpoch === epoch)) return true;
  return readAndCompare(services, hit, versions, epoch);
}

async function readAndCompare(
  services: Pick<Services, "access" | "responseCache">,
  hit: CachedAnswer,
  versions: ReadonlyMap<string, number | null>,
  epoch: number | undefined,
): Promise<boolean> {
  const current = await services.access.dataVersions([...versions.keys()]);
  for (const [id, version] of versions) {
    const now = current.get(id);
    if ((now ? stampOf(now, hit.areas) : null) !== version) {
      services.responseCache.drop(hit);
      return false;
    }
  }
  hit.checkedEpoch = epoch;
  return true;
}
