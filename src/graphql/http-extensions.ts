import type { RateLimitState } from "./limits/rate-limiter.js";

/** The budget as the `rateLimit` member of `extensions`. */
export function presentBudget(budget: RateLimitState) {
  return { limit: budget.limit, remaining: budget.remaining, resetAt: isoTime(budget.resetAt) };
}

// Consecutive requests of one window share its reset time: formatting it once is enough.
let lastIso = { seconds: Number.NaN, text: "" };
function isoTime(epochSeconds: number): string {
  if (lastIso.seconds !== epochSeconds) {
    lastIso = { seconds: epochSeconds, text: new Date(epochSeconds * 1000).toISOString() };
  }
  return lastIso.text;
}

/**
 * What follows an answer's `{"errors"…,"data":…` (stored or just executed): its `extensions` member,
 * written directly as bytes since it is on every response, and the closing brace.
 */
export function extensionsTail(
  cost: number,
  points: number,
  budget: RateLimitState,
  cached: boolean,
): Buffer {
  return Buffer.from(
    `,"extensions":{"cost":{"requestedQueryCost":${cost},"points":${points}},"rateLimit":{"limit":${budget.limit},"remaining":${budget.remaining},"resetAt":"${isoTime(budget.resetAt)}"},"cached":${cached}}}`,
    "latin1",
  );
}
