import type { Logger } from "../../logger.js";
import type { OrdersService } from "./orders.service.js";

/** How often an idle worker looks for holds that other processes (the CLI, other servers) placed. */
const idlePollMs = 5_000;
const minPollMs = 250;

/**
 * Expires pending orders whose hold lapsed, on every server process: each expiry is a conditional
 * state change under the order's lock (`expireLapsed`), so two processes racing for one order expire
 * it once and need no lease. Seats never wait for it: seat counts ignore a lapsed hold by themselves;
 * this turns the order EXPIRED, cancels its tickets (freeing their emails) and tells subscribers.
 */
export class OrderExpiryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly deps: { orders: OrdersService; logger: Logger }) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks for lapsed holds now. */
  wake(): void {
    if (this.stopped || this.running) return;
    this.running = this.round().then((nextAt) => {
      this.running = undefined;
      this.schedule(nextAt);
    });
  }

  /** Stops and waits for the round under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(nextAt: number | undefined): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const delay = nextAt === undefined ? idlePollMs : Math.min(idlePollMs, nextAt - Date.now());
    this.timer = setTimeout(() => this.wake(), Math.max(minPollMs, delay));
    this.timer.unref();
  }

  /** Expires what lapsed; answers when the next hold lapses (undefined: none, or unknown). */
  private async round(): Promise<number | undefined> {
    try {
      // A full batch may leave more behind: go on until a round expires less than it could.
      while (!this.stopped && (await this.deps.orders.expireLapsed()) > 0) {}
      const next = await this.deps.orders.nextLapse();
      return next === undefined ? undefined : Date.parse(next);
    } catch (error) {
      // The database may be down for a while: the next poll tries again.
      this.deps.logger.warn({ err: error }, "Order expiry worker could not expire holds");
      return undefined;
    }
  }
}
