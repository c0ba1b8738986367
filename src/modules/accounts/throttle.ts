import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "../../logger.js";

/** A budget of attempts per key over a fixed window that starts with the key's first attempt. */
export interface ThrottleRule {
  /** Names the counter (part of its key), e.g. "login-email". */
  name: string;
  limit: number;
  windowMs: number;
}

const minutes = 60 * 1000;

/**
 * The account throttles. 5 password guesses per account stop online guessing; an office behind one
 * address gets more room. Mails (sign-up, reset, invitation) are capped per recipient so nobody can
 * use Eventgraph to flood an inbox, and per client address so one caller cannot mail many inboxes
 * (generous, since a whole office or event team may sign up from one address).
 */
export const throttleRules = {
  loginEmail: { name: "login-email", limit: 5, windowMs: 15 * minutes },
  loginIp: { name: "login-ip", limit: 20, windowMs: 15 * minutes },
  signupIp: { name: "signup-ip", limit: 100, windowMs: 60 * minutes },
  mailRecipient: { name: "mail-to", limit: 5, windowMs: 60 * minutes },
  mailIp: { name: "mail-ip", limit: 200, windowMs: 60 * minutes },
  // A developer toggling a permission on and off must not flood the organizers of linked projects:
  // each organizer hears about one app's requests at most 3 times a day (the badge stays regardless).
  updateRequestMail: { name: "app-update-mail", limit: 3, windowMs: 24 * 60 * minutes },
  // Checks of the current password on the account page (change email or password, delete): a stolen
  // session must not become an unlimited password oracle.
  reauthUser: { name: "reauth-user", limit: 5, windowMs: 15 * minutes },
} as const satisfies Record<string, ThrottleRule>;

/** One counter to charge: a rule and the key it counts (an email, a client address). */
export interface ThrottleHit {
  rule: ThrottleRule;
  key: string;
}

/**
 * Attempt counters, checked and counted in one step: `take` either counts an attempt against every
 * key or, when any key is at its limit, counts nothing and refuses. So 200 parallel guesses get
 * exactly the budget's worth evaluated. Shared through Redis when configured (one Lua script, atomic
 * across processes); in process otherwise, where one synchronous step is atomic by itself.
 */
export interface Throttle {
  /** Counts one attempt on every hit's key if all are under their limits; false (nothing counted) otherwise. */
  take(hits: readonly ThrottleHit[]): Promise<boolean>;
  /** Gives back one attempt (a login that succeeded should not use up its address's budget). */
  giveBack(hit: ThrottleHit): Promise<void>;
  /** Forgets a key's attempts (a successful login clears its account's count). */
  clear(hit: ThrottleHit): Promise<void>;
}

// KEYS: the counters; ARGV: limit and window (ms) for each key, in order. Checks every key first and
// only then counts, so a refused attempt leaves every counter as it was.
const takeScript = `
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used >= tonumber(ARGV[2 * i - 1]) then return 0 end
end
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[2 * i]) end
end
return 1
`;

type TakeCommand = (numberOfKeys: number, ...args: (string | number)[]) => Promise<number>;

interface Window {
  used: number;
  endsAt: number;
}

/** Builds the throttle: over Redis when given one (keys under `keyPrefix`), else in process. */
export function createThrottle(
  options: { redis?: Redis | undefined; keyPrefix?: string | undefined; logger?: Logger | undefined } = {},
): Throttle {
  const prefix = `${options.keyPrefix ?? "eventgraph:"}throttle:`;
  // Bounded, so a flood of made-up emails cannot grow the process.
  const local = new LRUCache<string, Window>({ max: 50_000 });
  const keyOf = (hit: ThrottleHit) => `${hit.rule.name}:${hit.key}`;

  const takeLocally = (hits: readonly ThrottleHit[]): boolean => {
    const now = Date.now();
    const windows = hits.map((hit) => {
      const current = local.get(keyOf(hit));
      return current && current.endsAt > now ? current : { used: 0, endsAt: now + hit.rule.windowMs };
    });
    if (hits.some((hit, i) => (windows[i]?.used ?? 0) >= hit.rule.limit)) return false;
    hits.forEach((hit, i) => {
      const window = windows[i] as Window;
      window.used += 1;
      local.set(keyOf(hit), window);
    });
    return true;
  };

  const redis = options.redis;
  let takeInRedis: TakeCommand | undefined;
  if (redis) {
    const name = "eventgraphThrottleTake";
    if (!(name in redis)) redis.defineCommand(name, { lua: takeScript });
    takeInRedis = (redis as unknown as Record<string, TakeCommand>)[name]?.bind(redis);
  }

  // Redis being away must not lock everyone out: each process keeps its own counters meanwhile.
  const fallback = (error: unknown) =>
    options.logger?.warn({ err: error }, "throttle: Redis failed, counting in process");

  return {
    async take(hits) {
      if (!takeInRedis) return takeLocally(hits);
      const args = hits.flatMap((hit) => [hit.rule.limit, hit.rule.windowMs]);
      try {
        return (await takeInRedis(hits.length, ...hits.map((h) => prefix + keyOf(h)), ...args)) === 1;
      } catch (error) {
        fallback(error);
        return takeLocally(hits);
      }
    },
    async giveBack(hit) {
      const window = local.get(keyOf(hit));
      if (window && window.used > 0) window.used -= 1;
      if (!redis) return;
      try {
        // Never below zero: a key that expired meanwhile is left alone.
        const left = await redis.decr(prefix + keyOf(hit));
        if (left < 0) await redis.del(prefix + keyOf(hit));
      } catch (error) {
        fallback(error);
      }
    },
    async clear(hit) {
      local.delete(keyOf(hit));
      if (!redis) return;
      try {
        await redis.del(prefix + keyOf(hit));
      } catch (error) {
        fallback(error);
      }
    },
  };
}
