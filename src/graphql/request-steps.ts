import type { GraphQLSchema } from "graphql";
import { AppError, ErrorCode } from "../errors.js";
import { type Actor, bindOrigin } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import { allAreas } from "../shared/data-areas.js";
import type { AnswerHeaders } from "./answer-headers.js";
import { authenticate } from "./authentication.js";
import { callerView, canonicalJson, responseCacheKey, type View } from "./cache/cache-key.js";
import { areasReadBy } from "./cache/document-areas.js";
import type { RequestBudget } from "./context.js";
import type { DocumentCache } from "./documents.js";
import type { Operation } from "./execution.js";
import { detailsOf, Refusal } from "./http-answers.js";
import { setRateLimitHeaders } from "./http-caching.js";
import { presentBudget } from "./http-extensions.js";
import type { GraphQLParams } from "./http-params.js";
import { isIntrospectionOnly } from "./introspection/introspection-only.js";
import type { OperationAnalysis } from "./limits/analyze-operation.js";
import { assertWithinLimits, type OperationLimits } from "./limits/operation-limits.js";
import { pointsForCost, type RateLimitState, type RequestAllowance } from "./limits/rate-limiter.js";
import type { ApiVersion } from "./versions/api-versions.js";
import { deprecationOf } from "./versions/deprecations.js";

/**
 * The steps every API request goes through, whichever way it came in (the Fastify route, or the
 * hit lane that answers stored answers before Fastify: hit-lane.ts): who calls, what the operation
 * is and whether it is within the limits, and what it costs the caller's budget. Each step either
 * returns its result or throws a Refusal, whose HTTP status comes from the error table. There is one
 * per API version, with that version's schema and documents.
 */
export class RequestSteps {
  constructor(
    /** The API version these steps answer in. */
    readonly version: ApiVersion,
    private readonly services: Services,
    private readonly schema: GraphQLSchema,
    private readonly documents: DocumentCache,
    private readonly limits: OperationLimits,
  ) {}

  /**
   * The caller: the public view without a token, the app of a valid token, else UNAUTHENTICATED.
   * Without a promise when the answer is known at once (no header, a remembered token). Nothing is
   * counted yet: `admit` counts the request once it is answered.
   */
  authenticate(header: string | undefined): Actor | Promise<Actor> {
    let found: Actor | Promise<Actor>;
    try {
      found = authenticate(this.services, header);
    } catch (error) {
      throw refusalOfAuthentication(error);
    }
    if (found instanceof Promise) {
      return found.catch((error) => {
        throw refusalOfAuthentication(error);
      });
    }
    return found;
  }

  /** Counts an app's request (its usage figures) and binds where it came from (audit entries). */
  admit(actor: Actor, ip: string): void {
    // An app's actor object is this request's own; the public actor is shared and writes nothing.
    if (actor.kind !== "app") return;
    this.services.apps.recordRequest(actor.appId);
    if (actor.grant) this.services.oauth.recordUse(actor.grant.id);
    bindOrigin(actor, { via: "api", ip });
  }

  /** The caller's view in this version: the part of a cache key that says who asks, and in which version. */
  view(actor: Actor): View {
    return callerView(this.version.name, actor.kind === "app" ? actor : { kind: "public" });
  }

  /** Parses, validates and measures the operation, and refuses it past the limits. */
  prepare(params: GraphQLParams, actor: Actor): Operation {
    const { documents, limits } = this;
    const prepared = documents.prepare(params.query);
    if (!prepared.ok) {
      if ("error" in prepared) throw Refusal.from(prepared.error);
      throw new Refusal(
        ErrorCode.GRAPHQL_VALIDATION_FAILED,
        prepared.validationErrors.map((e) => ({
          message: e.message,
          locations: e.locations,
          extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED },
        })),
      );
    }
    const variables = documents.withDefaults(prepared.prepared, params.operationName, params.variables);
    const variablesJson = canonicalJson(params.variables);
    let analysis: OperationAnalysis;
    try {
      analysis = documents.analyze(prepared.prepared, params.operationName, variables, variablesJson);
      assertWithinLimits(analysis, limits);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // Variables that do not fit their types are a validation failure of the request.
      if (error.code !== ErrorCode.BAD_USER_INPUT) throw Refusal.from(error);
      throw new Refusal(ErrorCode.GRAPHQL_VALIDATION_FAILED, error.message, detailsOf(error));
    }
    const introspectionOnly =
      analysis.operationType === "query" &&
      isIntrospectionOnly(prepared.prepared.document, params.operationName);
    const cacheKey =
      analysis.operationType === "query" && !introspectionOnly
        ? responseCacheKey({
            view: this.view(actor),
            query: params.query,
            operationName: params.operationName,
            variablesJson,
          })
        : undefined;
    const areas = cacheKey ? areasReadBy(this.schema, prepared.prepared.document) : allAreas;
    const { version, schema } = this;
    const deprecation = deprecationOf(version, schema, prepared.prepared.document);
    return {
      params,
      prepared: prepared.prepared,
      analysis,
      variables,
      cacheKey,
      areas,
      introspectionOnly,
      version,
      deprecation,
    };
  }

  /**
   * `prepare` for the route, paid for. A document not prepared before is parsed and its validation
   * paid up front (`validationPoints`), so it is never validated for a caller without the budget; a
   * refused document costs a point all the same: refused documents with a changing comment are no
   * free work. `paid`: the points taken, which the operation's own charge then includes.
   */
  async preparePaid(
    headers: AnswerHeaders,
    params: GraphQLParams,
    actor: Actor,
    ip: string,
  ): Promise<{ operation: Operation; paid: number }> {
    const [key, limit] = this.budgetOf(actor, ip);
    const selections = this.documents.selectionsToValidate(params.query);
    let paid = 0;
    if (selections !== undefined) {
      paid = validationPoints(selections);
      const budget = await this.services.rateLimiter.consume(key, paid, limit);
      setRateLimitHeaders(headers, budget, paid);
      if (!budget.allowed) refuseOverBudget(headers, budget, paid);
    }
    try {
      return { operation: this.prepare(params, actor), paid };
    } catch (error) {
      if (!(error instanceof Refusal) || paid > 0) throw error;
      const budget = await this.services.rateLimiter.consume(key, 1, limit);
      setRateLimitHeaders(headers, budget, 1);
      throw error;
    }
  }

  /** Where the caller's points are counted: per app, or per client IP for public requests. */
  budgetOf(actor: Actor, ip: string): [key: string, limit: number] {
    const { limits } = this.services.config;
    return actor.kind === "app"
      ? [`app:${actor.appId}`, limits.appPointsPerHour]
      : [`ip:${ip}`, limits.publicPointsPerHour];
  }

  /**
   * Takes the operation's points from the caller's hourly budget and sets the budget's header
   * fields, or refuses with RATE_LIMITED. In process the budget is known at once: no promise.
   */
  charge(
    headers: AnswerHeaders,
    actor: Actor,
    { analysis }: Operation,
    ip: string,
    /** Points `preparePaid` took already for this request (its validation). */
    paid = 0,
  ): RequestBudget | Promise<RequestBudget> {
    const points = Math.max(pointsForCost(analysis.cost), paid);
    const [key, limit] = this.budgetOf(actor, ip);
    const charged = this.services.rateLimiter.consume(key, points - paid, limit);
    if (charged instanceof Promise)
      return charged.then((budget) => settle(headers, analysis, points, budget));
    return settle(headers, analysis, points, charged);
  }

  /**
   * `charge` for an introspection-only operation: the `points` its answer costs (introspection/
   * answer-introspection.ts says how many), and one request of the caller's introspection
   * allowance, counted per app or client IP as the points are; both, or neither and RATE_LIMITED.
   */
  async chargeIntrospection(
    headers: AnswerHeaders,
    actor: Actor,
    { analysis }: Operation,
    ip: string,
    { points, paid, allowance }: { points: number; paid: number; allowance: Omit<RequestAllowance, "key"> },
  ): Promise<RequestBudget> {
    const total = Math.max(points, paid);
    const [key, limit] = this.budgetOf(actor, ip);
    const budget = await this.services.rateLimiter.consume(key, total - paid, limit, {
      key: `introspection:${key}`,
      ...allowance,
    });
    if (budget.allowanceExceeded) {
      setRateLimitHeaders(headers, budget, total);
      headers.set("retry-after", String(budget.retryAfterSeconds));
      const message = `More than ${allowance.limit} introspection requests in ${allowance.windowSeconds} s; retry in ${budget.retryAfterSeconds} s`;
      throw new Refusal(
        ErrorCode.RATE_LIMITED,
        message,
        { retryAfterSeconds: budget.retryAfterSeconds },
        { rateLimit: presentBudget(budget) },
      );
    }
    return settle(headers, analysis, total, budget);
  }
}

/** Points for validating a document of `selections` selections once: its cost grows with them. */
function validationPoints(selections: number): number {
  return Math.max(1, Math.ceil(selections / 25));
}

/** Refuses with RATE_LIMITED, telling the caller its budget. */
function refuseOverBudget(headers: AnswerHeaders, budget: RateLimitState, points: number): never {
  setRateLimitHeaders(headers, budget, points);
  headers.set("retry-after", String(budget.retryAfterSeconds));
  const message = `Rate limit of ${budget.limit} points per hour exceeded; retry in ${budget.retryAfterSeconds} s`;
  throw new Refusal(
    ErrorCode.RATE_LIMITED,
    message,
    { retryAfterSeconds: budget.retryAfterSeconds },
    { rateLimit: presentBudget(budget) },
  );
}

/** Tells the caller its budget, and refuses with RATE_LIMITED when the points did not fit. */
function settle(
  headers: AnswerHeaders,
  analysis: OperationAnalysis,
  points: number,
  budget: RateLimitState,
): RequestBudget {
  if (!budget.allowed) refuseOverBudget(headers, budget, points);
  setRateLimitHeaders(headers, budget, points);
  // Spelled out: on Node 20 a spread with members after it (`{ ...budget, cost, points }`) is far
  // slower than a literal, and this runs on every API request.
  return {
    allowed: budget.allowed,
    limit: budget.limit,
    remaining: budget.remaining,
    resetAt: budget.resetAt,
    retryAfterSeconds: budget.retryAfterSeconds,
    cost: analysis.cost,
    points,
  };
}

/** A rejected token is the caller's error (401); anything else fails the request as it is. */
function refusalOfAuthentication(error: unknown): unknown {
  return error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED ? Refusal.from(error) : error;
}
