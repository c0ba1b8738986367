import type { ResponseCache } from "../graphql/cache/response-cache.js";

/**
 * The event site's pages, cached in the API's response cache under the same rules: an entry is keyed
 * by the project's data version read (with the access decision) before any of its data, and tagged
 * with the project, so any write to the project (through ProjectChanges, on any process) drops it
 * and the next request computes the page afresh. Pages that read the clock (a sales window opening)
 * also expire after `ttlMs`, as API answers do.
 */
export class PageCache {
  constructor(
    private readonly cache: ResponseCache,
    private readonly ttlMs = 30_000,
  ) {}

  /**
   * The cached body of `path` at `version`, or `render()`'s, stored when it completed without the
   * project changing meanwhile. The view "event-site" cannot collide with an API key's view.
   */
  async get(
    projectId: string,
    version: number | null,
    path: string,
    render: () => Promise<string>,
  ): Promise<{ body: Buffer | string; cached: boolean }> {
    const key = `event-site\u0000${projectId}\u0000${version ?? ""}\u0000${path}`;
    const hit = this.cache.lookup(key);
    if (hit) return { body: hit.body, cached: true };
    const mark = this.cache.begin();
    const body = await render();
    this.cache.store(key, body, [projectId], mark, {
      ttlMs: this.ttlMs,
      versions: new Map([[projectId, version]]),
    });
    return { body, cached: false };
  }
}
