import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "../logger.js";

/**
 * Counters over fixed windows, the one mechanism behind the API's rate limits (points per app or
 * address per hour) and the account throttles (attempts per account, address or inbox). A window
 * starts with its key's first charge and lasts `windowMs`.
 */

/** Points to charge to one key, within a budget of `limit` per window of `windowMs`. */
interface Charge {
  key: string;
  points: number;
  limit: number;
  windowMs: number;
}

/** What a take decided: whether every charge fit, and each key's points used and window time left. */
export interface Decision {
  allowed: boolean;
  windows: { used: number; msLeft: number }[];
}

export interface WindowCounters {
  /**
   * Charges every charge's points when all of them fit their budgets, or none when any does not
   * (a refused request or attempt is not counted); `charge: false` decides without charging. Atomic
   * across processes over Redis (one Lua script), and in process, where one synchronous step is
   * atomic by itself: so the in-process answer comes without a promise.
   */
  take(charges: readonly Charge[], charge: boolean): Decision | Promise<Decision>;
  /** Gives one point back to `key` (never below zero). */
  giveBack(key: string): Promise<void>;
  /** Forgets `key`'s window. */
  clear(key: string): Promise<void>;
}

export interface WindowCountersOptions {
  /** Share the counters through this Redis connection (owned by the caller); in process when absent. */
  redis?: Redis | undefined;
  /** Prefix of the Redis keys, so several deployments, tests or kinds of counter can share one Redis. */
  keyPrefix: string;
  /** Keys remembered in process; the least recently seen is forgotten first, so a flood of made-up keys cannot grow the process. */
  maxKeys: number;
  /** Warns here when Redis fails and the in-process counters answer instead. */
  logger?: Logger | undefined;
  /** Names the counters in that warning. */
  what: string;
  /** The clock, in epoch milliseconds. */
  now?: () => number;
}

// KEYS: the counters; ARGV: the mode, then points, limit and window (ms) for each key. Reads every
// window first and charges only when all fit, so a refusal leaves every counter as it was. A key
// without a time to live (none, or left over) opens a new window. Returns {allowed, then used and
// milliseconds left for each key}.
const takeScript = `
local out = {1}
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    used = 0
    ttl = tonumber(ARGV[3 * i + 1])
  end
  if used + tonumber(ARGV[3 * i - 1]) > tonumber(ARGV[3 * i]) then out[1] = 0 end
  out[2 * i] = used
  out[2 * i + 1] = ttl
end
if out[1] == 1 and ARGV[1] == 'charge' then
  for i, key in ipairs(KEYS) do
    local points = tonumber(ARGV[3 * i - 1])
    if points > 0 then
      if out[2 * i] == 0 then
        redis.call('SET', key, points, 'PX', ARGV[3 * i + 1])
        out[2 * i] = points
      else
        out[2 * i] = redis.call('INCRBY', key, points)
      end
    end
  end
end
return out
`;

type TakeCommand = (numberOfKeys: number, ...args: (string | number)[]) => Promise<number[]>;

interface Usage {
  used: number;
  endsAt: number;
}

/** Builds the counters: over Redis when given one, else in process. */
export function createWindowCounters(options: WindowCountersOptions): WindowCounters {
  const now = options.now ?? Date.now;
  const { keyPrefix, redis } = options;
  const local = new LRUCache<string, Usage>({ max: options.maxKeys });

  // The in-process path runs on every API request without Redis: one map lookup per key.
  const takeLocally = (charges: readonly Charge[], charge: boolean): Decision => {
    const at = now();
    // Plain loops: with one charge (every API request) this allocates only the answer.
    const usages: Usage[] = new Array(charges.length);
    let allowed = true;
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i] as Charge;
      const open = local.get(c.key);
      const usage = open && open.endsAt > at ? open : { used: 0, endsAt: at + c.windowMs };
      usages[i] = usage;
      if (usage.used + c.points > c.limit) allowed = false;
    }
    const windows: Decision["windows"] = new Array(charges.length);
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i] as Charge;
      const usage = usages[i] as Usage;
      if (allowed && charge && c.points > 0) {
        // A window that held nothing is new and joins the map (one emptied by giveBack is in it already).
        if (usage.used === 0) local.set(c.key, usage);
        usage.used += c.points;
      }
      windows[i] = { used: usage.used, msLeft: usage.endsAt - at };
    }
    return { allowed, windows };
  };

  let takeInRedis: TakeCommand | undefined;
  if (redis) {
    const name = "eventgraphWindowTake";
    if (!(name in redis)) redis.defineCommand(name, { lua: takeScript });
    takeInRedis = (redis as unknown as Record<string, TakeCommand>)[name]?.bind(redis);
  }

  // Redis being away must neither take the API down nor lock everyone out: each process keeps its
  // own counters until Redis answers again (a client may then get up to one budget per process).
  const fellBack = (error: unknown) =>
    options.logger?.warn({ err: error }, `${options.what}: Redis failed, counting in process`);

  const takeThroughRedis = async (command: TakeCommand, charges: readonly Charge[], charge: boolean) => {
    try {
      const args = charges.flatMap((c) => [c.points, c.limit, c.windowMs]);
      const keys = charges.map((c) => keyPrefix + c.key);
      const [allowed, ...windows] = await command(
        charges.length,
        ...keys,
        charge ? "charge" : "peek",
        ...args,
      );
      return {
        allowed: allowed === 1,
        windows: charges.map((_, i) => ({ used: windows[2 * i] ?? 0, msLeft: windows[2 * i + 1] ?? 0 })),
      };
    } catch (error) {
      fellBack(error);
      return takeLocally(charges, charge);
    }
  };

  // Without a ready connection (Redis down, reconnecting) the in-process counters answer at once:
  // a command sent then would wait in ioredis's offline queue for the command timeout, which made
  // every request of an outage take a second. The connection logs the outage once.
  const ready = () => redis?.status === "ready";

  return {
    take(charges, charge) {
      return takeInRedis && ready()
        ? takeThroughRedis(takeInRedis, charges, charge)
        : takeLocally(charges, charge);
    },
    async giveBack(key) {
      const usage = local.get(key);
      if (usage && usage.used > 0) usage.used -= 1;
      if (!redis || !ready()) return;
      try {
        // Never below zero: a key that expired meanwhile is left alone.
        const left = await redis.decr(keyPrefix + key);
        if (left < 0) await redis.del(keyPrefix + key);
      } catch (error) {
        fellBack(error);
      }
    },
    async clear(key) {
      local.delete(key);
      if (!redis || !ready()) return;
      try {
        await redis.del(keyPrefix + key);
      } catch (error) {
        fellBack(error);
      }
    },
  };
}
