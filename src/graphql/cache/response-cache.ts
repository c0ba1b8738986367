import { LRUCache } from "lru-cache";
import type { Encoding, OpenStream } from "../../http/compression.js";
import { type AreaMask, allAreas, areaBit, dataAreaCount } from "../../shared/data-areas.js";
import { AreaIndex } from "./area-index.js";

/**
 * The API's response cache: serialized response bytes of read-only operations, bounded in bytes.
 *
 * Exactness: each entry is tagged with the ids of the projects its execution read and the data
 * areas it read, and `invalidateProject` deletes every entry that read a written area of the
 * project at once through a reverse index (project and area → keys, area-index.ts), so memory is
 * freed immediately and the cost is proportional to what is dropped. Per-project generations in
 * the key would also be exact but leave dead entries occupying the byte budget until the LRU
 * pushes them out.
 *
 * The race: a write that commits while a response is being computed could leave a stale response
 * behind if it were stored after the invalidation. So `begin()` marks the start of an execution
 * (a sequence number) and `store` refuses the response if any project it read (or the whole
 * cache) was invalidated after that mark.
 *
 * Keys are built by cache-key.ts: the cache stores under whatever key it is given.
 */

/** Sizes of the cache. */
export interface ResponseCacheOptions {
  /** Total bytes of cached bodies (plus a small per-entry overhead); default 64 MiB. */
  maxBytes?: number;
  /** Largest single body worth caching; default a sixteenth of maxBytes. */
  maxEntryBytes?: number;
  /** Project ids whose last invalidation is remembered for the race check; older ones are assumed just changed. */
  maxTrackedProjects?: number;
  /**
   * Once the cached bodies take more bytes than this, an answer is stored only when its key is asked
   * for the second time (within the last ~32,000 distinct misses); below it, at once. Default: always
   * at once. See `store`.
   */
  admitOnSecondRequestAbove?: number;
  /**
   * A counter that changes whenever another process may have written unseen (SQLite's
   * data_version; PostgreSQL's change feed, whose notifications evict as they arrive). While it
   * stands still, every write is known here (this process's own writes invalidate at once), so a
   * hit already checked against the database needs no second check. Without it, or while it
   * answers undefined, every hit is checked.
   */
  externalWrites?: (() => number | undefined) | undefined;
}

/** Counters for monitoring and tests. */
export interface ResponseCacheStats {
  hits: number;
  /** Of the hits, those the hit lane answered before Fastify (src/graphql/hit-lane.ts). */
  laneHits: number;
  misses: number;
  /** Stores refused because a project changed during execution, or the cache was suspended. */
  refused: number;
  entries: number;
  bytes: number;
}

/** The moment an execution started, from `begin()`. */
export type ExecutionMark = number & { readonly __brand: "ExecutionMark" };

interface Entry extends CachedAnswer {
  projectIds: readonly string[];
}

/** A cached answer and the project data versions it was computed at. */
export interface CachedAnswer {
  key: string;
  body: Buffer;
  /**
   * Version stamp (src/shared/data-areas.ts) of the areas read, per project, when the answer was
   * computed (null: the project did not exist).
   */
  versions: ReadonlyMap<string, number | null> | undefined;
  /** The data areas the answer read: only writes to these evict it. */
  areas: AreaMask;
  /** The `epoch()` at which the versions were last known current (computed or checked). */
  checkedEpoch: number | undefined;
  /**
   * The body compressed once per content coding, on the first hit that asks for it (so answers
   * that are never hit again cost no compression); a few KB each, not counted in the byte budget.
   */
  encoded: Partial<Record<Encoding, Promise<OpenStream>>>;
}

// What an entry costs beyond its body and key (entry, tags, versions, LRU slots), measured at about
// 1 KB of heap: counted, so many tiny entries cannot exceed the budget unnoticed.
const entryOverhead = 1024;

/** A bounded in-memory cache of serialized responses with exact per-project invalidation. */
export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly keysByArea = new AreaIndex();
  private sequence = 0;
  /** Per project, the sequence of the last change of each data area (index: the area's bit). */
  private readonly changedAt: LRUCache<string, number[]>;
  /** Highest mark of a project forgotten by `changedAt`: a forgotten project may have changed up to then. */
  private forgottenChangeAt = 0;
  private allChangedAt = 0;
  private suspended = false;
  private hits = 0;
  private laneHits = 0;
  private misses = 0;
  private refused = 0;
  private readonly admitOnSecondRequestAbove: number;
  private readonly recentMisses = new Doorkeeper(16_384);
  private readonly externalWrites: (() => number | undefined) | undefined;
  private lastExternal: number | undefined;
  private epochValue = 0;
  private epochReadThisTurn = false;
  /** Changes of any project's project area, counted for `credentialsEpoch`. */
  private projectAreaChanges = 0;

  constructor(options: ResponseCacheOptions = {}) {
    const maxSize = options.maxBytes ?? 64 * 1024 * 1024;
    this.admitOnSecondRequestAbove = options.admitOnSecondRequestAbove ?? Number.POSITIVE_INFINITY;
    this.externalWrites = options.externalWrites;
    this.entries = new LRUCache<string, Entry>({
      maxSize,
      maxEntrySize: options.maxEntryBytes ?? Math.floor(maxSize / 16),
      sizeCalculation: (entry, key) => entry.body.byteLength + key.length + entryOverhead,
      dispose: (entry, key) => this.untag(key, entry),
    });
    this.changedAt = new LRUCache<string, number[]>({
      max: options.maxTrackedProjects ?? 100_000,
      dispose: (changed, _projectId, reason) => {
        if (reason === "evict") this.forgottenChangeAt = Math.max(this.forgottenChangeAt, ...changed);
      },
    });
  }

  /** The cached body for `key`, or undefined (counted as a hit or a miss). */
  get(key: string): Buffer | undefined {
    return this.lookup(key)?.body;
  }

  /**
   * The cached answer for `key` with the versions to check it against, or undefined. `again`: the
   * same request's second look (it waited for an execution slot), whose first look was counted as
   * a miss: a hit now turns that miss into a hit, so each request is counted once.
   */
  lookup(key: string, again = false): CachedAnswer | undefined {
    const entry = this.peek(key);
    if (again) {
      if (entry) {
        this.misses -= 1;
        this.hits += 1;
      }
    } else if (entry) this.hits += 1;
    else this.misses += 1;
    return entry;
  }

  /**
   * The cached answer for `key`, counted as nothing: the hit lane looks first and counts only what
   * it serves (`countLaneHit`), handing anything else on to the look that counts.
   */
  peek(key: string): CachedAnswer | undefined {
    return this.suspended ? undefined : this.entries.get(key);
  }

  countLaneHit(): void {
    this.hits += 1;
    this.laneHits += 1;
  }

  /**
   * A request whose look was counted as a miss was answered by an execution of the same key under
   * way (single flight): nothing ran for it, so it counts as a hit, as a second look that hits does.
   */
  countShared(): void {
    this.misses -= 1;
    this.hits += 1;
  }

  /**
   * A number that stays the same while no other process can have written unnoticed; undefined when
   * that is unknowable (no `externalWrites`), so every hit must be checked against the database.
   * Only other processes' writes move it: this process's own writes, and those a push channel
   * delivers, evict the answers they concern at once (invalidateProject), so the others need no
   * check. A settings change of one project therefore sends no other project's hits to the database.
   */
  epoch(): number | undefined {
    if (!this.externalWrites) return undefined;
    if (this.epochReadThisTurn) return this.epochValue;
    let current: number | undefined;
    try {
      current = this.externalWrites();
    } catch {
      // The database is closed or failing: nothing is known, so every hit is checked (and fails there).
      return undefined;
    }
    if (current === undefined) return undefined;
    if (current !== this.lastExternal) {
      this.lastExternal = current;
      this.epochValue += 1;
    }
    // Reading data_version starts a read transaction, so it is read once per batch of requests: the
    // requests the poll phase hands over together were received before the first of them is
    // handled, so a commit elsewhere meanwhile is concurrent with them and either order is a correct
    // answer. A value read before the batch (in a timer) must not serve it: the front door calls
    // `requestsArrive` with each batch's first request (src/http/front-door.ts).
    this.epochReadThisTurn = true;
    setImmediate(() => {
      this.epochReadThisTurn = false;
    });
    return this.epochValue;
  }

  /** A batch of requests arrives: the next `epoch()` reads the database's counter again. */
  requestsArrive(): void {
    this.epochReadThisTurn = false;
  }

  /**
   * Like `epoch`, but also moved by every change of any project's project area (settings, members,
   * apps and their tokens): what is remembered across requests under it (the tokens of
   * graphql/authentication.ts, apps' access in modules/access) is checked again. Both counters
   * only grow, so their sum is the same exactly while neither moved.
   */
  credentialsEpoch(): number | undefined {
    const epoch = this.epoch();
    return epoch === undefined ? undefined : epoch + this.projectAreaChanges;
  }

  /** Marks the start of an execution; call it before the execution reads anything. */
  begin(): ExecutionMark {
    return this.sequence as ExecutionMark;
  }

  /**
   * Whether any area of `projectId`, or everything, was invalidated after `mark`, or the cache is
   * suspended (other processes' invalidations may be missed): whether a fact about the project read
   * after `mark` (modules/access: its status and versions) may be out of date.
   */
  changedSince(projectId: string, mark: number): boolean {
    return this.suspended || this.allChangedAt > mark || this.lastChange(projectId, allAreas) > mark;
  }

  /**
   * Stores a response computed since `mark` that read `projectIds`. Refuses (returns false) when
   * one of those projects, or everything, was invalidated after the mark, while the cache is
   * suspended, or when the body is larger than one entry may be. `ttlMs` bounds the life of a
   * response that also depends on the clock (a ticket sale window opening).
   *
   * Admission: past `admitOnSecondRequestAbove` bytes, the first answer for a key is not stored
   * (returns false), only remembered as asked for. A stream of one-off queries (every request
   * different, as crawlers and cursor walks send) then neither pushes out the answers that are asked
   * for again and again nor keeps the heap churning at the cache's full size.
   */
  store(
    key: string,
    body: Buffer | string,
    projectIds: Iterable<string>,
    mark: ExecutionMark,
    options: {
      ttlMs?: number;
      versions?: ReadonlyMap<string, number | null>;
      areas?: AreaMask;
      /** `epoch()` read before the execution began. */
      epoch?: number | undefined;
    } = {},
  ): boolean {
    const ids = [...new Set(projectIds)];
    const areas = options.areas ?? allAreas;
    if (this.suspended || this.allChangedAt > mark || ids.some((id) => this.lastChange(id, areas) > mark)) {
      this.refused += 1;
      return false;
    }
    if (this.entries.calculatedSize > this.admitOnSecondRequestAbove && !this.recentMisses.seenBefore(key)) {
      return false;
    }
    const entry: Entry = {
      key,
      body: typeof body === "string" ? ownBuffer(body) : body,
      projectIds: ids,
      versions: options.versions,
      areas: options.areas ?? allAreas,
      checkedEpoch: options.epoch,
      encoded: {},
    };
    this.entries.set(key, entry, options.ttlMs ? { ttl: options.ttlMs } : {});
    if (this.entries.peek(key) !== entry) return false;
    this.keysByArea.add(key, ids, entry.areas);
    return true;
  }

  /**
   * Drops every response that read `areas` of `projectId`, and refuses those over these areas
   * being computed now.
   */
  invalidateProject(projectId: string, areas: AreaMask = allAreas): void {
    this.sequence += 1;
    // A change of the project area moves the credentials epoch. Such changes are rare; check-ins
    // and agenda edits leave the remembered tokens and access alone.
    if (areas & areaBit.project) this.projectAreaChanges += 1;
    // Only answers being computed over the areas written are refused: under 50 check-ins a second,
    // agenda answers must still be stored.
    const changed = this.changedAt.get(projectId) ?? new Array<number>(dataAreaCount).fill(0);
    for (let i = 0; i < dataAreaCount; i++) if (areas & (1 << i)) changed[i] = this.sequence;
    this.changedAt.set(projectId, changed);
    for (const key of this.keysByArea.keysReading(projectId, areas)) this.entries.delete(key);
  }

  /** Drops one answer (found stale by a version check). */
  drop(answer: CachedAnswer): void {
    if (this.entries.peek(answer.key) === answer) this.entries.delete(answer.key);
  }

  /** Drops every response and refuses those being computed now. */
  invalidateAll(): void {
    this.sequence += 1;
    this.allChangedAt = this.sequence;
    this.entries.clear();
  }

  /**
   * Stops serving and storing, dropping everything: used while invalidations from other processes
   * may be missed (the signal connection is down).
   */
  suspend(): void {
    this.suspended = true;
    this.invalidateAll();
  }

  /** Serves and stores again, starting empty: whatever was computed during the outage is refused. */
  resume(): void {
    this.suspended = false;
    this.invalidateAll();
  }

  /** Current counters. */
  stats(): ResponseCacheStats {
    return {
      hits: this.hits,
      laneHits: this.laneHits,
      misses: this.misses,
      refused: this.refused,
      entries: this.entries.size,
      bytes: this.entries.calculatedSize,
    };
  }

  private lastChange(projectId: string, areas: AreaMask): number {
    const changed = this.changedAt.peek(projectId);
    if (!changed) return this.forgottenChangeAt;
    let last = 0;
    for (let i = 0; i < dataAreaCount; i++) if (areas & (1 << i)) last = Math.max(last, changed[i] ?? 0);
    return last;
  }

  private untag(key: string, entry: Entry): void {
    this.keysByArea.remove(key, entry.projectIds, entry.areas);
  }
}

/**
 * Remembers which keys were recently offered, as 32-bit hashes in two generations of `size` each:
 * a false "seen" (a hash collision) only stores an answer one request early.
 */
class Doorkeeper {
  private current = new Set<number>();
  private previous = new Set<number>();

  constructor(private readonly size: number) {}

  /** Whether `key` was offered before; remembers it either way. */
  seenBefore(key: string): boolean {
    const hash = fnv1a(key);
    if (this.current.has(hash) || this.previous.has(hash)) return true;
    if (this.current.size >= this.size) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(hash);
    return false;
  }
}

// FNV-1a over UTF-16 code units: fast, and good enough to tell recent keys apart.
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The UTF-8 bytes of `text` in an allocation of their own: a small Buffer.from() is a slice of a
 * shared 8 KB pool, and a cached slice would keep its whole pool chunk alive for as long as it is cached.
 */
function ownBuffer(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, "utf8"));
  bytes.write(text, "utf8");
  return bytes;
}
