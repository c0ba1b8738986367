/** What an operation does, for the order in which waiting operations get a slot. */
export type OperationKind = "read" | "write";

/**
 * At most `concurrency` operations execute at once (why: http.ts), and when a slot frees, a waiting
 * write goes before waiting reads. On an event day a check-in queued behind up to fifty page misses
 * in FIFO order: its p99 was 200–320 ms for ~1 ms of work (docs/performance.md). Writes are few and
 * short, so letting them pass costs the reads little; so that a flood of writes cannot starve the
 * reads either, a waiting read gets the slot after `writesPerRead` writes in a row went first.
 */
export class ExecutionSlots {
  private active = 0;
  private readonly waiting: Record<OperationKind, (() => void)[]> = { read: [], write: [] };
  // Writes given a slot in a row while reads were waiting.
  private writesInARow = 0;

  constructor(
    readonly concurrency: number,
    private readonly writesPerRead = 4,
  ) {}

  /** Whether an operation arriving now would wait for a slot. */
  get full(): boolean {
    return this.active >= this.concurrency;
  }

  /** Runs `task` in a slot, after waiting for one when all are taken. */
  async run<T>(kind: OperationKind, task: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) this.active++;
    // A slot freed is handed to the waiter directly (release), so `active` stays as it is.
    else await new Promise<void>((resolve) => this.waiting[kind].push(resolve));
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const { read, write } = this.waiting;
    let next: (() => void) | undefined;
    if (write.length > 0 && (read.length === 0 || this.writesInARow < this.writesPerRead)) {
      if (read.length > 0) this.writesInARow++;
      next = write.shift();
    } else {
      this.writesInARow = 0;
      next = read.shift();
    }
    if (next) next();
    else this.active--;
  }
}
