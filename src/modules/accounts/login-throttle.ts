import { LRUCache } from "lru-cache";

/** Limits for failed logins; counted per email and per client address. */
export interface ThrottleLimits {
  perEmail: number;
  perIp: number;
  windowMs: number;
}

// 5 wrong passwords per account stop online guessing; an office behind one address gets more room.
const defaultThrottleLimits: ThrottleLimits = { perEmail: 5, perIp: 20, windowMs: 15 * 60 * 1000 };

/**
 * Counts failed logins in memory, bounded by an LRU so a flood of made-up emails cannot grow it.
 * Per process: with several processes an attacker gets at most one budget per process.
 */
export class LoginThrottle {
  private readonly failures: LRUCache<string, number[]>;

  constructor(private readonly limits: ThrottleLimits = defaultThrottleLimits) {
    this.failures = new LRUCache({ max: 50_000, ttl: limits.windowMs });
  }

  /** True when either key has used up its failures in the current window. */
  isBlocked(email: string, ip: string): boolean {
    return (
      this.recent(`email:${email}`).length >= this.limits.perEmail ||
      this.recent(`ip:${ip}`).length >= this.limits.perIp
    );
  }

  /** Records one failed attempt for both keys. */
  recordFailure(email: string, ip: string): void {
    const now = Date.now();
    for (const key of [`email:${email}`, `ip:${ip}`]) this.failures.set(key, [...this.recent(key), now]);
  }

  /** A successful login clears the account's count (the address keeps its count). */
  recordSuccess(email: string): void {
    this.failures.delete(`email:${email}`);
  }

  private recent(key: string): number[] {
    const since = Date.now() - this.limits.windowMs;
    return (this.failures.get(key) ?? []).filter((t) => t > since);
  }
}
