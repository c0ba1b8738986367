import { LRUCache } from "lru-cache";

/**
 * The longest anything about access is remembered across requests (an app's token, an app's access
 * to a project, a project's status), even while nothing says it changed: a change the process could
 * not hear of (a bug, a clock skew between processes) ends with it.
 * @internal exported for src/modules/access/remembered.test.ts
 */
export const rememberedForMs = 60_000;

/**
 * The one rule for what a process remembers about access across requests: a value is trusted only
 * while `epoch` still answers the number it was remembered under, and for `rememberedForMs` at most.
 * The epochs come from the response cache (graphql/cache/response-cache.ts), moved by every change
 * of access that any process makes, since the database itself moves the project's version on each
 * (migration 2026-11-28T10-00_access-versions). `epoch` answers undefined while this process cannot
 * learn of other processes' changes (PostgreSQL's change feed not listening, SQLite's data_version
 * unreadable): then nothing is recalled and every request reads the database (fail closed). With
 * `enabled` false (the `remembered-credentials` fast path switched off) nothing is ever remembered.
 */
export class Remembered<V> {
  private readonly entries: LRUCache<string, { epoch: number; value: V }>;

  private readonly enabled: boolean;

  constructor(
    private readonly epoch: () => number | undefined,
    options: { enabled?: boolean; max?: number; clock?: { now(): number } } = {},
  ) {
    this.enabled = options.enabled ?? true;
    this.entries = new LRUCache({
      max: options.max ?? 10_000,
      ttl: rememberedForMs,
      // Read the clock on every look, rather than once a millisecond on a timer.
      ttlResolution: 0,
      perf: options.clock,
    });
  }

  /** The epoch to read before reading the database; undefined when nothing may be remembered now. */
  now(): number | undefined {
    return this.enabled ? this.epoch() : undefined;
  }

  /** What `key` was remembered as under `epoch` (from `now()`), if anything. */
  recall(key: string, epoch: number | undefined): { value: V } | undefined {
    if (epoch === undefined) return undefined;
    const found = this.entries.get(key);
    return found && found.epoch === epoch ? found : undefined;
  }

  /** Remembers `value`, read from the database after `now()` answered `epoch`. */
  keep(key: string, epoch: number | undefined, value: V): void {
    if (epoch !== undefined) this.entries.set(key, { epoch, value });
  }
}
