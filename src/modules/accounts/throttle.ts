import type { Redis } from "ioredis";
import { AppError, ErrorCode } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { addressKey } from "../../shared/client-address.js";
import { createWindowCounters } from "../../shared/window-counters.js";

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
  // The OAuth token and revocation endpoints: a client refreshes about once an hour per grant, so
  // these leave a busy app room while capping guesses at codes, secrets and refresh tokens.
  oauthTokenIp: { name: "oauth-token-ip", limit: 300, windowMs: 15 * minutes },
  oauthTokenClient: { name: "oauth-token-client", limit: 600, windowMs: 15 * minutes },
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

/** Builds the throttle: over Redis when given one (keys under `keyPrefix`), else in process. */
export function createThrottle(
  options: { redis?: Redis | undefined; keyPrefix?: string | undefined; logger?: Logger | undefined } = {},
): Throttle {
  const counters = createWindowCounters({
    redis: options.redis,
    keyPrefix: `${options.keyPrefix ?? "eventgraph:"}throttle:`,
    maxKeys: 50_000,
    logger: options.logger,
    what: "throttle",
  });
  const keyOf = (hit: ThrottleHit) => `${hit.rule.name}:${hit.key}`;
  return {
    async take(hits) {
      const charges = hits.map((hit) => ({
        key: keyOf(hit),
        points: 1,
        limit: hit.rule.limit,
        windowMs: hit.rule.windowMs,
      }));
      return (await counters.take(charges, true)).allowed;
    },
    giveBack: (hit) => counters.giveBack(keyOf(hit)),
    clear: (hit) => counters.clear(keyOf(hit)),
  };
}

/** What a caller over a mail budget (or sign-up's address budget) is told. */
export const tooManyMailsMessage = "Too many emails were requested. Wait an hour and try again.";

/**
 * Charges one mail a caller triggers (sign-up, reset, a new address's confirmation) to its recipient
 * and to the client's address, or refuses with RATE_LIMITED counting nothing.
 */
export async function takeMail(throttle: Throttle, to: string, clientIp: string): Promise<void> {
  const hits: ThrottleHit[] = [
    { rule: throttleRules.mailRecipient, key: to.trim().toLowerCase() },
    { rule: throttleRules.mailIp, key: addressKey(clientIp) },
  ];
  if (!(await throttle.take(hits))) throw new AppError(ErrorCode.RATE_LIMITED, tooManyMailsMessage);
}
