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

// The `extensions` member of an executed or cached answer, written directly: it is on every response.
export function extensionsJson(
  cost: number,
  points: number,
  budget: RateLimitState,
  cached: boolean,
): string {
  return `{"cost":{"requestedQueryCost":${cost},"points":${points}},"rateLimit":{"limit":${budget.limit},"remaining":${budget.remaining},"resetAt":"${isoTime(budget.resetAt)}"},"cached":${cached}}`;
}
