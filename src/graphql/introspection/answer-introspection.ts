import type { FastifyReply } from "fastify";
import type { Actor } from "../../modules/access/actor.js";
import type { Operation } from "../execution.js";
import { type Exchange, sendInTwo } from "../http-answers.js";
import { applyIntrospectionCaching, namesTag, sendNotModified } from "../http-caching.js";
import { extensionsTail } from "../http-extensions.js";
import { pointsForCost } from "../limits/rate-limiter.js";
import type { RequestSteps } from "../request-steps.js";
import { partsOf } from "../stored-answer.js";
import type { IntrospectionAnswer, IntrospectionAnswers } from "./introspection-answers.js";

/**
 * What introspection costs its caller (docs/security.md, README "Limits"). A code generator or an
 * IDE introspects the same schema again and again; at its cost as a query (the standard
 * introspection query is ~7,100, 72 points) a developer had 13 runs an hour without a token.
 * - An answer computed for this request costs what any query of its cost costs: the work was done,
 *   and a document made up to miss the cache pays for it.
 * - An answer the cache holds costs 1 point, the least any request costs (as GitHub counts).
 * - An answer the client holds already (If-None-Match names it: 304, no body) costs nothing, as
 *   GitHub's conditional requests do.
 * - Every introspection request, whatever it costs, takes one of the caller's allowance of 600 a
 *   minute (per app, or per client IP without a token): 304s cannot be sent without bound, and
 *   once spent the allowance has room again within the minute, not the hour.
 */
const introspectionCharges = {
  cachedPoints: 1,
  notModifiedPoints: 0,
  allowance: { limit: 600, windowSeconds: 60 },
} as const;

/**
 * The route's steps for an introspection-only operation, after it was prepared (and its validation
 * paid: `paid` points): charge the caller, then answer 304 or the answer's bytes, kept or computed;
 * and what that would charge, for a dry run.
 */
export function introspectionResponder(steps: RequestSteps, answers: IntrospectionAnswers) {
  /** The answer's key, the answer kept under it, and the points it costs a client that holds `asked`. */
  const priced = (operation: Operation, asked: string | undefined) => {
    const key = answers.keyOf(operation);
    const kept = answers.get(key);
    let points = pointsForCost(operation.analysis.cost);
    if (kept?.etag !== undefined) {
      points = namesTag(asked, kept.etag)
        ? introspectionCharges.notModifiedPoints
        : introspectionCharges.cachedPoints;
    }
    return { key, kept, points };
  };

  return {
    /** The points the operation would cost now (before validation is paid), for a dry run. */
    points: (operation: Operation, asked: string | undefined): number => priced(operation, asked).points,

    async answer(
      exchange: Exchange,
      actor: Actor,
      operation: Operation,
      paid: number,
    ): Promise<FastifyReply> {
      const { request, headers } = exchange;
      const asked = request.headers["if-none-match"];
      const { key, kept, points } = priced(operation, asked);
      const budget = await steps.chargeIntrospection(headers, actor, operation, request.ip, {
        points,
        paid,
        allowance: introspectionCharges.allowance,
      });
      // Another request may have computed it while this one was charged.
      let answer: IntrospectionAnswer | undefined = kept ?? answers.get(key);
      const cached = answer !== undefined;
      answer ??= answers.compute(operation, key, request.id);
      if (answer.etag !== undefined) {
        applyIntrospectionCaching(exchange, actor, answer.etag);
        if (namesTag(asked, answer.etag)) return sendNotModified(exchange);
      }
      const tail = extensionsTail(operation.analysis.cost, budget.points, budget, cached);
      const [head, rest] = await partsOf(request, headers, answer, tail);
      return sendInTwo(exchange, head, rest);
    },
  };
}
