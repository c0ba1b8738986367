import { AppError, ErrorCode } from "../../errors.js";
import { addressKey } from "../../shared/client-address.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";

/**
 * Requests to the public event site per client address (an IPv6 /64 counts as one) and minute.
 * Generous: a venue's Wi-Fi puts hundreds of attendees behind one address at the opening keynote,
 * and a cached page costs little.
 */
const visitRule: ThrottleRule = { name: "event-site-ip", limit: 3_000, windowMs: 60_000 };
/**
 * Pages rendered (not served from the cache) per client address and minute. A render of a large
 * programme reads and writes the whole of it; the cache makes each page one render per data change,
 * so a visitor needs only a few, while a script asking for pages nobody cached is stopped here.
 */
const renderRule: ThrottleRule = { name: "event-site-render-ip", limit: 60, windowMs: 60_000 };

function refused(rule: ThrottleRule): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, "Too many requests from your network. Try again in a minute.", {
    retryAfterSeconds: rule.windowMs / 1000,
  });
}

/** The public site's per-address budget: every request, and the renders among them. */
export function createSiteBudget(throttle: Throttle) {
  return {
    /** Counts a request; throws RATE_LIMITED past the budget. */
    async admitVisit(ip: string): Promise<void> {
      if (!(await throttle.take([{ rule: visitRule, key: addressKey(ip) }]))) throw refused(visitRule);
    },
    /** Counts a render (a cache miss); throws RATE_LIMITED past the budget. */
    async admitRender(ip: string): Promise<void> {
      if (!(await throttle.take([{ rule: renderRule, key: addressKey(ip) }]))) throw refused(renderRule);
    },
  };
}
