import type { Db } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { oauthRepository } from "./oauth.repository.js";

/** How long a grant's last use waits in memory before it is written. */
const flushIntervalMs = 5_000;

/**
 * The last use of each grant, as the dashboard shows it. Every request with an OAuth token is a use,
 * so the times are kept in memory and written a few seconds later (one statement per grant used
 * since), as UsageRecorder does for apps' request counts; readers add what is not written yet. The
 * column fires no trigger: a use is not a change of access and evicts nothing.
 */
export class GrantUsage {
  private pending = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** Notes a use of the grant now; never touches the database. */
  record(grantId: string): void {
    this.pending.set(grantId, new Date().toISOString());
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.flush().catch(() => {});
      }, flushIntervalMs);
      this.timer.unref();
    }
  }

  /** The last use noted in this process and not yet written. */
  pendingLastUse(grantId: string): string | undefined {
    return this.pending.get(grantId);
  }

  /** Writes the noted uses; a failed write keeps them for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.pending;
    this.pending = new Map();
    for (const [grantId, usedAt] of batch) {
      try {
        // One statement each, no transaction: each moves one column forward and nothing reads them together.
        await oauthRepository.touchGrant(this.db, grantId, usedAt);
      } catch (error) {
        if (!this.pending.has(grantId)) this.pending.set(grantId, usedAt);
        this.logger.warn({ err: error }, "Could not write an OAuth grant's last use; will retry");
      }
    }
  }
}
