import type { Config } from "../../config.js";
import { AppError, ErrorCode } from "../../errors.js";
import { defaultPageSize, maxPageSize } from "../../shared/pagination.js";

/** The limits an operation is checked against before it runs (PRODUCT.md §4). */
export interface OperationLimits {
  /** Longest chain of nested fields, fragments flattened. */
  maxDepth: number;
  /** Largest computed cost (see analyze-operation.ts for the arithmetic). */
  maxCost: number;
  /** Lexical tokens in the document, enforced while parsing. */
  maxTokens: number;
  /** Fields, fragment spreads and inline fragments written in the document, checked before validation. */
  maxSelections: number;
  /** Aliased fields in the executed operation, fragments expanded. */
  maxAliases: number;
  /** Directive uses in the executed operation, fragments expanded. */
  maxDirectives: number;
  /** Fields of introspection (`__schema`, `__type`) one operation may answer: about 3 full schemas. */
  maxIntrospection: number;
  /** Page size counted for a connection queried without `first`/`last`. */
  defaultPageSize: number;
  /** Largest page size a connection serves; larger `first`/`last` count as this. */
  maxPageSize: number;
}

/** Defaults of the limits that have no environment variable; depth and cost come from config.ts. */
export const operationLimitDefaults = {
  maxTokens: 10_000,
  // graphql-js's validation compares same-named fields pairwise (OverlappingFieldsCanBeMerged): 600
  // copies of a five-field selection held the event loop 0.13–0.26 s. Refused before validating;
  // the largest documents the tests and examples send have fewer than 300 selections.
  maxSelections: 500,
  maxAliases: 100,
  maxDirectives: 50,
  // Introspection executes synchronously (graphql-js): 50,000 fields held the event loop ~100 ms.
  maxIntrospection: 15_000,
  defaultPageSize,
  maxPageSize,
} as const;

/** MAX_QUERY_COST's default, also the bound of an analysis run without configured limits. */
export const defaultMaxCost = 50_000;

/** What each root field of a mutation costs at least: a transaction, row locks, cache invalidation. */
export const writeCost = 10;

/** The full set of limits for this process: the configured depth and cost plus the fixed defaults. */
export function operationLimitsFrom(config: Pick<Config, "limits">): OperationLimits {
  return {
    ...operationLimitDefaults,
    maxDepth: config.limits.maxQueryDepth,
    maxCost: config.limits.maxQueryCost,
  };
}

/** The measures `assertWithinLimits` compares; `tokens` is absent when the document has no locations. */
export interface OperationMeasures {
  cost: number;
  depth: number;
  aliases: number;
  directives: number;
  introspection?: number | undefined;
  tokens?: number | undefined;
}

/**
 * The error for one exceeded limit, in the one wording every limit shares: `limit` names it,
 * `value` and `max` measure it. The cost limit also answers `cost` and `maxCost`, the members
 * docs/guides/03-errors.md has always promised (added, so clients of either shape keep working).
 */
export function tooComplex(limit: string, value: number, max: number): AppError {
  return new AppError(ErrorCode.QUERY_TOO_COMPLEX, `${limit} is ${value}, the limit is ${max}`, {
    limit,
    value,
    max,
    ...(limit === "cost" ? { cost: value, maxCost: max } : {}),
  });
}

/**
 * Throws QUERY_TOO_COMPLEX naming the first limit exceeded, checked from the cheapest to explain
 * (tokens, depth, aliases, directives) to cost, so a client fixes the structural problem first.
 */
export function assertWithinLimits(measures: OperationMeasures, limits: OperationLimits): void {
  const checks: [string, number | undefined, number][] = [
    ["tokens", measures.tokens, limits.maxTokens],
    ["depth", measures.depth, limits.maxDepth],
    ["aliases", measures.aliases, limits.maxAliases],
    ["directives", measures.directives, limits.maxDirectives],
    ["introspection", measures.introspection, limits.maxIntrospection],
    ["cost", measures.cost, limits.maxCost],
  ];
  for (const [limit, value, max] of checks) {
    if (value !== undefined && value > max) throw tooComplex(limit, value, max);
  }
}
