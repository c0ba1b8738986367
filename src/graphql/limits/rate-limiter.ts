import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../logger.js";
import { rateLimitRejections } from "../../metrics/instruments.js";

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
}

/** Charges and reads per-key budgets; shared across processes when built over Redis. */
export interface RateLimiter {
  /** Charges `points` to `key` if they fit in the window's budget; a rejected request is not charged. */
  consume(key: string, points: number, limitPerHour: number): RateLimitState | Promise<RateLimitState>;
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

interface Usage {
  used: number;
  windowEndsAt: number;
}

// One round trip, atomic: reads the window, and only when the points fit charges them (starting a
// new window if none is open). Returns {allowed, used, milliseconds left in the window}.
const consumeScript = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local points = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
if ttl < 0 then
  used = 0
  ttl = window
end
if used + points > limit then
  return {0, used, ttl}
end
if ARGV[4] == 'charge' and points > 0 then
  if used == 0 then
    redis.call('SET', KEYS[1], points, 'PX', window)
    used = points
  else
    used = redis.call('INCRBY', KEYS[1], points)
  end
end
return {1, used, ttl}
`;

type ConsumeCommand = (
  key: string,
  points: number,
  limit: number,
  windowMs: number,
  mode: string,
) => Promise<[number, number, number]>;

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
  const keyPrefix = options.keyPrefix ?? "eventgraph:";
  const local = new LRUCache<string, Usage>({ max: options.maxKeys ?? 100_000 });

  // The in-process path runs on every request without Redis: one map lookup, no allocation once
  // the key's window is open.
  const decideLocally = (key: string, points: number, limit: number, charge: boolean, at: number) => {
    let usage = local.get(key);
    if (!usage || usage.windowEndsAt <= at) {
      usage = { used: 0, windowEndsAt: at + windowMs };
      if (charge && points > 0 && points <= limit) local.set(key, usage);
    }
    const allowed = usage.used + points <= limit;
    if (allowed && charge) usage.used += points;
    return state(allowed, usage.used, usage.windowEndsAt - at, limit, at);
  };

  const redis = options.redis;
  let consumeInRedis: ConsumeCommand | undefined;
  if (redis) {
    const name = "eventgraphRateLimit";
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: 1, lua: consumeScript });
    const command = (redis as unknown as Record<string, ConsumeCommand>)[name];
    consumeInRedis = command?.bind(redis);
  }

  const decideInRedis = async (
    command: ConsumeCommand,
    key: string,
    points: number,
    limit: number,
    charge: boolean,
  ): Promise<RateLimitState> => {
    try {
      const [allowed, used, msLeft] = await command(
        `${keyPrefix}ratelimit:${key}`,
        points,
        limit,
        windowMs,
        charge ? "charge" : "peek",
      );
      return state(allowed === 1, used, msLeft, limit, now());
    } catch (error) {
      // Redis being away must not take the API down with it: each process keeps its own budget
      // until Redis answers again (a client may then get up to one budget per process).
      options.logger?.warn({ err: error }, "rate limiter: Redis failed, using the in-process budget");
      return decideLocally(key, points, limit, charge, now());
    }
  };
  // While the connection is not ready (Redis down, reconnecting) the budget is decided in process
  // at once: a command sent then would wait in ioredis's offline queue for the command timeout,
  // which made every request of an outage take a second. The connection logs the outage once.
  const decide = (key: string, points: number, limit: number, charge: boolean) =>
    consumeInRedis && redis?.status === "ready"
      ? decideInRedis(consumeInRedis, key, points, limit, charge)
      : decideLocally(key, points, limit, charge, now());

  return {
    // In process, the budget is known without a promise: this runs on every request.
    consume(key, points, limitPerHour) {
      assertBudget(points, limitPerHour);
      const result = decide(key, points, limitPerHour, true);
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
