import type { Redis } from "ioredis";
import type { Logger } from "../../logger.js";
import { rateLimitRejections } from "../../metrics/instruments.js";
import { createWindowCounters, type Decision } from "../../shared/window-counters.js";

/**
 * A budget of points per key (an app id, or a client IP for public requests) over a fixed window
 * of one hour that starts with the key's first charged request, as GitHub's GraphQL limit does.
 */
export interface RateLimitState {
  /** Whether the request may run (consume: it was charged; peek: one more point would fit). */
  allowed: boolean;
  /** The budget per window. */
  limit: number;
  /** Points left in the current window after this call. */
  remaining: number;
  /** When the window ends, in epoch seconds. */
  resetAt: number;
  /** Seconds until a rejected request may be retried (0 when allowed), for `Retry-After`. */
  retryAfterSeconds: number;
  /** Set on a request refused by its allowance (`consume`'s) while its points would have fit. */
  allowanceExceeded?: true;
}

/**
 * A count of requests over a short window that `consume` charges beside the points: it bounds
 * requests whose points are few or none (a conditional introspection answered 304).
 */
export interface RequestAllowance {
  /** The counter's key, apart from every budget's. */
  key: string;
  /** Requests per window. */
  limit: number;
  windowSeconds: number;
}

/** Charges and reads per-key budgets; shared across processes when built over Redis. */
export interface RateLimiter {
  /**
   * Charges `points` to `key` if they fit in the window's budget, and one request to `allowance`
   * when given, if it has room too: both or neither. A rejected request is not charged.
   */
  consume(
    key: string,
    points: number,
    limitPerHour: number,
    allowance?: RequestAllowance,
  ): RateLimitState | Promise<RateLimitState>;
  /** Reads `key`'s budget without charging it. */
  peek(key: string, limitPerHour: number): Promise<RateLimitState>;
}

/** How a rate limiter is built; every field is optional. */
export interface RateLimiterOptions {
  /** Share budgets through this Redis connection (owned by the caller); in-process when absent. */
  redis?: Redis | undefined;
  /** Prefix of the Redis keys, so several deployments (or tests) can share one Redis. */
  keyPrefix?: string;
  /** Window length; one hour unless a test needs a short one. */
  windowSeconds?: number;
  /** Keys remembered in process (each a few dozen bytes); the least recently seen is forgotten first. */
  maxKeys?: number;
  /** Warns here when Redis fails and the in-process budget answers instead. */
  logger?: Logger | undefined;
  /** The clock, in epoch milliseconds. */
  now?: () => number;
}

/**
 * Rate-limit points for an operation of the given cost, as GitHub scores its GraphQL API: one point
 * per hundred cost units, at least one per request. A query at the cost limit (50,000) then takes
 * 500 of an app's 10,000 hourly points instead of more than the whole budget.
 */
export function pointsForCost(cost: number): number {
  return Math.max(1, Math.ceil(cost / 100));
}

function state(allowed: boolean, used: number, msLeft: number, limit: number, at: number): RateLimitState {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - used),
    resetAt: Math.ceil((at + msLeft) / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/** Builds a rate limiter: in-process, or shared by every process using the same Redis. */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const windowMs = (options.windowSeconds ?? 3600) * 1000;
  const counters = createWindowCounters({
    redis: options.redis,
    keyPrefix: `${options.keyPrefix ?? "eventgraph:"}ratelimit:`,
    maxKeys: options.maxKeys ?? 100_000,
    logger: options.logger,
    what: "rate limiter",
    now,
  });
  const stateOf = (decision: Decision, limit: number) => {
    const window = decision.windows[0] ?? { used: 0, msLeft: windowMs };
    return state(decision.allowed, window.used, window.msLeft, limit, now());
  };
  const decide = (key: string, points: number, limit: number, charge: boolean) => {
    const decision = counters.take([{ key, points, limit, windowMs }], charge);
    return decision instanceof Promise ? decision.then((d) => stateOf(d, limit)) : stateOf(decision, limit);
  };
  // The budget's state; refused by the allowance alone, it says so and when the allowance has room.
  const withAllowance = (decision: Decision, points: number, limit: number, allowance: RequestAllowance) => {
    const budget = stateOf(decision, limit);
    const window = decision.windows[0];
    if (decision.allowed || (window && window.used + points > limit)) return budget;
    const msLeft = decision.windows[1]?.msLeft ?? allowance.windowSeconds * 1000;
    const retryAfterSeconds = Math.max(1, Math.ceil(msLeft / 1000));
    return { ...budget, retryAfterSeconds, allowanceExceeded: true as const };
  };
  const decideWith = (key: string, points: number, limit: number, allowance: RequestAllowance) => {
    const decision = counters.take(
      [
        { key, points, limit, windowMs },
        { key: allowance.key, points: 1, limit: allowance.limit, windowMs: allowance.windowSeconds * 1000 },
      ],
      true,
    );
    return decision instanceof Promise
      ? decision.then((d) => withAllowance(d, points, limit, allowance))
      : withAllowance(decision, points, limit, allowance);
  };

  return {
    // In process, the budget is known without a promise: this runs on every request.
    consume(key, points, limitPerHour, allowance) {
      assertBudget(points, limitPerHour);
      if (allowance) assertBudget(1, allowance.limit);
      const result = allowance
        ? decideWith(key, points, limitPerHour, allowance)
        : decide(key, points, limitPerHour, true);
      return result instanceof Promise ? result.then((r) => counted(key, r)) : counted(key, result);
    },
    async peek(key, limitPerHour) {
      assertBudget(1, limitPerHour);
      return decide(key, 1, limitPerHour, false);
    },
  };
}

/** Counts a rejected charge of `key` in the metrics; the state passes through. */
function counted(key: string, result: RateLimitState): RateLimitState {
  if (!result.allowed) rateLimitRejections.labels(key.startsWith("app:") ? "app" : "ip").inc();
  return result;
}

function assertBudget(points: number, limit: number): void {
  if (!Number.isSafeInteger(points) || points < 0)
    throw new RangeError(`points must be an integer ≥ 0, got ${points}`);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`limit must be an integer ≥ 1, got ${limit}`);
}
