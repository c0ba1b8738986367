import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../errors.js";
import type { Throttle, ThrottleRule } from "../modules/accounts/throttle.js";
import { addressKey } from "../shared/client-address.js";

/**
 * Dashboard requests per session and minute: a person clicking, even quickly, stays far below; a
 * script replaying a heavy page with a stolen or its own cookie does not.
 */
const sessionRule: ThrottleRule = { name: "dashboard-session", limit: 300, windowMs: 60_000 };
/**
 * Dashboard requests per client address (an IPv6 /64 is one) and minute: several organizers behind
 * one office address, and the login and sign-up pages of people without a session.
 */
const addressRule: ThrottleRule = { name: "dashboard-ip", limit: 1_200, windowMs: 60_000 };

/** Counts a dashboard request against its session and its address; RATE_LIMITED past either. */
export async function admitDashboardRequest(
  throttle: Throttle,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  // The stylesheet and scripts are static files; the browser caches them.
  if (request.url.startsWith("/assets/")) return;
  const hits = [{ rule: addressRule, key: addressKey(request.ip) }];
  const session = request.dashboard.session;
  if (session) hits.push({ rule: sessionRule, key: session.id });
  if (await throttle.take(hits)) return;
  reply.header("retry-after", "60");
  throw new AppError(ErrorCode.RATE_LIMITED, "Too many requests. Wait a minute, then reload the page.", {
    retryAfterSeconds: 60,
  });
}
