import type { CachedAnswer, ResponseCache } from "../graphql/cache/response-cache.js";
import { closingBytes, compressThreshold, type Encoding, openStream } from "../http/compression.js";
import { eventPageAreas } from "../shared/data-areas.js";

/**
 * The event site's pages, cached in the API's response cache under the same rules: an entry is keyed
 * by the project's version stamp of the areas a page shows (`eventPageAreas`: a check-in does not
 * drop the page) read (with the access decision) before any of its data, and tagged
 * with the project, so any write to the project (through ProjectChanges, on any process) drops it
 * and the next request computes the page afresh. Pages that read the clock (a sales window opening)
 * also expire after `ttlMs`, as API answers do.
 */
export class PageCache {
  /** Renders under way, by key: a burst of requests for a page not yet cached renders it once. */
  private readonly rendering = new Map<string, Promise<string>>();
  /**
   * Compressed pages by entry and coding. A page has no tail of its own per request, so its stored
   * stream is closed and joined once, not on every hit; an evicted entry takes them along.
   */
  private readonly compressedPages = new WeakMap<CachedAnswer, Partial<Record<Encoding, Promise<Buffer>>>>();

  constructor(
    private readonly cache: ResponseCache,
    private readonly ttlMs = 30_000,
  ) {}

  /**
   * The cached body of the page `variant` (what it shows, never the query string) at `version`, or `render()`'s, stored when it completed without the
   * project changing meanwhile. The view "event-site" cannot collide with an API key's view. A hit
   * comes in `encoding` (the client's choice) when the page is worth compressing: compressed once per
   * entry and coding, as the API's hits are, instead of by @fastify/compress on every request.
   */
  async get(
    projectId: string,
    version: number | null,
    variant: string,
    render: () => Promise<string>,
    encoding?: Encoding,
  ): Promise<{ body: Buffer | string; cached: boolean; encoding?: Encoding }> {
    const key = `event-site\u0000${projectId}\u0000${version ?? ""}\u0000${variant}`;
    const hit = this.cache.lookup(key);
    if (hit && encoding && hit.body.byteLength >= compressThreshold) {
      return { body: await this.compressed(hit, encoding), cached: true, encoding };
    }
    if (hit) return { body: hit.body, cached: true };
    const pending = this.rendering.get(key);
    if (pending) return { body: await pending, cached: true };
    const mark = this.cache.begin();
    const rendered = render();
    this.rendering.set(key, rendered);
    try {
      const body = await rendered;
      this.cache.store(key, body, [projectId], mark, {
        ttlMs: this.ttlMs,
        versions: new Map([[projectId, version]]),
        areas: eventPageAreas,
      });
      return { body, cached: false };
    } finally {
      this.rendering.delete(key);
    }
  }

  private compressed(hit: CachedAnswer, encoding: Encoding): Promise<Buffer> {
    const pages = this.compressedPages.get(hit) ?? {};
    this.compressedPages.set(hit, pages);
    if (!pages[encoding]) {
      // The entry's open stream is the one the API's hits share; an empty tail always fits.
      hit.encoded[encoding] ??= openStream(hit.body, encoding);
      pages[encoding] = hit.encoded[encoding].then((open) =>
        Buffer.concat([open.prefix, closingBytes(open, Buffer.alloc(0)) as Buffer]),
      );
    }
    return pages[encoding];
  }
}
