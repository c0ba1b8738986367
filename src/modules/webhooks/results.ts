import { nowIso } from "../../shared/time.js";
import { disableIfFailing, type HealthDeps } from "./endpoint-health.js";
import { type AttemptResult, finishAttempts } from "./results.repository.js";
import type { EndpointRow } from "./webhooks.repository.js";

/** An attempt's result, and what it says of its endpoint's health when a request was sent. */
export interface Outcome {
  result: AttemptResult;
  health?: { endpoint: EndpointRow; ok: boolean };
}

/** How many results one transaction writes at most. */
const maxBatch = 200;

/**
 * Writes attempt results. Results that arrive while one transaction is writing wait and go in the
 * next one together: in a burst, hundreds of answers a second share a few commits instead of each
 * taking its own. `written` hears of each batch once it is stored (an object's next event becomes
 * claimable only then).
 */
export class ResultWriter {
  private readonly waiting: Outcome[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly deps: HealthDeps,
    private readonly written: () => void,
  ) {}

  add(outcome: Outcome): void {
    this.waiting.push(outcome);
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /** Resolves once every result added so far is written (or given up on). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      await this.write(this.waiting.splice(0, maxBatch));
      this.written();
    }
  }

  /** A result not written keeps its lease, and the delivery goes again when the lease runs out. */
  private async write(outcomes: Outcome[]): Promise<void> {
    let recorded: Set<string>;
    // Each endpoint's health is what its latest answer says.
    const latest = new Map<string, { appId: string; ok: boolean; at: string }>();
    for (const { health } of outcomes)
      if (health)
        latest.set(health.endpoint.app_id, { appId: health.endpoint.app_id, ok: health.ok, at: nowIso() });
    try {
      recorded = await retrying(() =>
        finishAttempts(
          this.deps.database.db,
          outcomes.map((o) => o.result),
          [...latest.values()],
        ),
      );
    } catch (error) {
      this.deps.logger.error({ err: error }, "Webhook results not recorded");
      return;
    }
    const failing = new Map<string, EndpointRow>();
    for (const { result, health } of outcomes) {
      if (!recorded.has(result.deliveryId)) {
        this.deps.logger.warn(
          { deliveryId: result.deliveryId },
          "Webhook lease lost before its result was recorded",
        );
        continue;
      }
      if (health && !health.ok) failing.set(health.endpoint.app_id, health.endpoint);
    }
    for (const endpoint of failing.values()) await disableIfFailing(this.deps, endpoint);
  }
}

/** Runs `work` again after transient database errors (a lost connection, a serialization failure). */
async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}
