import { performance } from "node:perf_hooks";

/** What an operation does, for the order in which waiting operations get a slot. */
export type OperationKind = "read" | "write";

/** How many operations may execute at once, and how waiting ones are ordered. */
export interface SlotLimits {
  /** Operations of either kind at once. */
  concurrency: number;
  /** Of them, reads at once (default: `concurrency`); writes may take every slot. */
  reads?: number;
  /** A read running this long no longer counts against `reads` (default: it always counts). */
  longReadMs?: number;
  /** Writes let past waiting reads in a row before a read goes (default 4). */
  writesPerRead?: number;
}

/**
 * At most `concurrency` operations execute at once (why: execution.ts), at most `reads` of them
 * reads, and when a slot frees, a waiting write goes before waiting reads. On an event day a
 * check-in queued behind up to fifty page misses in FIFO order: its p99 was 200–320 ms for ~1 ms of
 * work (docs/performance.md). Writes are few and short, so letting them pass costs the reads little;
 * so that a flood of writes cannot starve the reads either, a waiting read gets the slot after
 * `writesPerRead` writes in a row went first. Each kind waits in arrival order. A read that has run
 * `longReadMs` holds no other read back: another may start beside it, in a free slot.
 */
export class ExecutionSlots {
  readonly concurrency: number;
  private readonly reads: number;
  private readonly longReadMs: number;
  private readonly writesPerRead: number;
  // When each running read started (performance.now()).
  private readonly readsRunning = new Set<{ at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly active: Record<OperationKind, number> = { read: 0, write: 0 };
  private readonly waiting: Record<OperationKind, (() => void)[]> = { read: [], write: [] };
  // Writes given a slot in a row while a read could have had it.
  private writesInARow = 0;

  constructor({ concurrency, reads = concurrency, longReadMs = Infinity, writesPerRead = 4 }: SlotLimits) {
    this.concurrency = concurrency;
    this.reads = Math.min(reads, concurrency);
    this.longReadMs = longReadMs;
    this.writesPerRead = writesPerRead;
  }

  /** Whether an operation of `kind` arriving now would wait for a slot. */
  wouldWait(kind: OperationKind): boolean {
    return this.waiting[kind].length > 0 || !this.hasRoomFor(kind);
  }

  /** Runs `task` in a slot, after waiting for one when none is free for its kind. */
  async run<T>(kind: OperationKind, task: () => Promise<T>): Promise<T> {
    if (this.wouldWait(kind)) {
      // A slot freed is handed to the waiter directly (grant), counted for it.
      const granted = new Promise<void>((resolve) => this.waiting[kind].push(resolve));
      this.wakeWhenLong();
      await granted;
    } else this.active[kind]++;
    const read = kind === "read" ? { at: performance.now() } : undefined;
    if (read) {
      this.readsRunning.add(read);
      this.wakeWhenLong();
    }
    try {
      return await task();
    } finally {
      if (read) this.readsRunning.delete(read);
      this.active[kind]--;
      this.grant();
    }
  }

  private hasRoomFor(kind: OperationKind): boolean {
    const { read, write } = this.active;
    return read + write < this.concurrency && (kind === "write" || this.shortReads() < this.reads);
  }

  // The running reads that still count against `reads`.
  private shortReads(): number {
    if (this.longReadMs === Infinity) return this.active.read;
    const since = performance.now() - this.longReadMs;
    let short = 0;
    for (const read of this.readsRunning) if (read.at > since) short++;
    // A read granted but not yet started counts too.
    return short + this.active.read - this.readsRunning.size;
  }

  private grant(): void {
    for (let kind = this.nextKind(); kind; kind = this.nextKind()) {
      this.active[kind]++;
      (this.waiting[kind].shift() as () => void)();
    }
    this.wakeWhenLong();
  }

  // Reads waiting behind running ones: look again when the oldest of those turns long. Without a
  // free slot there is nothing to look for: the next operation to finish grants it.
  private wakeWhenLong(): void {
    if (this.timer || this.longReadMs === Infinity || this.waiting.read.length === 0) return;
    if (this.active.read + this.active.write >= this.concurrency) return;
    const now = performance.now();
    let oldest = Infinity;
    for (const read of this.readsRunning)
      if (read.at > now - this.longReadMs) oldest = Math.min(oldest, read.at);
    // No running read is short any more, yet a read waits: the clock moved on since it was made to
    // wait (the process was descheduled in between). Nothing else would wake it: grant at once.
    const delay = oldest === Infinity ? 0 : oldest + this.longReadMs - now;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.grant();
    }, delay + 1);
  }

  private nextKind(): OperationKind | undefined {
    const read = this.waiting.read.length > 0 && this.hasRoomFor("read");
    const write = this.waiting.write.length > 0 && this.hasRoomFor("write");
    if (write && (!read || this.writesInARow < this.writesPerRead)) {
      if (read) this.writesInARow++;
      return "write";
    }
    if (!read) return undefined;
    this.writesInARow = 0;
    return "read";
  }
}
