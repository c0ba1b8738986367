import type { Db } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { utcDay } from "../../shared/time.js";
import { appsRepository, type UsageIncrement } from "./apps.repository.js";

/** How long counted requests wait in memory before they are written. */
const usageFlushIntervalMs = 5_000;

interface PendingUsage {
  /** Requests per UTC day not yet written. */
  byDay: Map<string, number>;
  lastUsedAt: string;
}

/**
 * Counts API requests per app and UTC day. Every authenticated request is counted, so the counts
 * are kept in memory and written in one transaction a few seconds later (and on `flush()` at
 * shutdown) instead of one write per request. Readers add what this process has not written yet.
 */
export class UsageRecorder {
  private pending = new Map<string, PendingUsage>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private formatted = { at: Number.NaN, time: "", day: "" };

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly intervalMs = usageFlushIntervalMs,
  ) {}

  /** Counts one request of the app now; never touches the database. */
  record(appId: string): void {
    // Runs on every authenticated request, a few of them per millisecond under load: the time is
    // formatted once per millisecond at most, and its ISO text gives the day too.
    const now = Date.now();
    if (now !== this.formatted.at) {
      const time = new Date(now).toISOString();
      this.formatted = { at: now, time, day: time.slice(0, 10) };
    }
    this.add(appId, this.formatted.day, 1, this.formatted.time);
  }

  /** Requests counted in this process and not yet written, per app, on or after `fromDay`. */
  pendingRequests(appId: string, fromDay: string): number {
    let total = 0;
    for (const [day, n] of this.pending.get(appId)?.byDay ?? []) if (day >= fromDay) total += n;
    return total;
  }

  /** The latest request time counted in this process and not yet written. */
  pendingLastUsedAt(appId: string): string | undefined {
    return this.pending.get(appId)?.lastUsedAt;
  }

  /** Drops what is counted for a deleted app. */
  forget(appId: string): void {
    this.pending.delete(appId);
  }

  /**
   * Writes everything counted so far in one transaction. Flushes run one after another; a failed
   * flush puts its counts back to be written next time, so a database hiccup loses no requests.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.writePending());
    // The queue goes on after a failure; the caller of this flush still sees the error.
    this.flushing = run.catch(() => {});
    return run;
  }

  private async writePending(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      // Bare: usage counters decide no access and no cached answer reads them (readers add the pending ones).
      await this.db.transaction().execute(async (trx) => {
        // An app deleted since its requests were counted has no row to count them against.
        const existing = await appsRepository.existingAppIds(trx, [...batch.keys()]);
        const increments: UsageIncrement[] = [];
        for (const [appId, usage] of batch) {
          if (!existing.has(appId)) continue;
          for (const [day, requests] of usage.byDay) increments.push({ appId, day, requests });
        }
        await appsRepository.addUsage(trx, increments);
        for (const [appId, usage] of batch) {
          if (existing.has(appId)) await appsRepository.touchLastUsed(trx, appId, usage.lastUsedAt);
        }
      });
    } catch (error) {
      for (const [appId, usage] of batch) {
        for (const [day, n] of usage.byDay) this.add(appId, day, n, usage.lastUsedAt);
      }
      this.logger.warn({ err: error, apps: batch.size }, "Could not write API usage counts; will retry");
      throw error;
    }
  }

  private add(appId: string, day: string, requests: number, lastUsedAt: string): void {
    let usage = this.pending.get(appId);
    if (!usage) {
      usage = { byDay: new Map(), lastUsedAt };
      this.pending.set(appId, usage);
    }
    usage.byDay.set(day, (usage.byDay.get(day) ?? 0) + requests);
    if (usage.lastUsedAt < lastUsedAt) usage.lastUsedAt = lastUsedAt;
    // The timer runs only while something waits, and never keeps the process alive on its own.
    if (!this.timer) {
      this.timer = setTimeout(() => {
        // A failure is logged and the counts are kept for the next flush.
        this.flush().catch(() => {});
      }, this.intervalMs);
      this.timer.unref();
    }
  }
}

/** The first UTC day of the 30-day window that ends today. */
export function firstDayOfLast30Days(now = new Date()): string {
  return utcDay(new Date(now.getTime() - 29 * 24 * 60 * 60 * 1000));
}
