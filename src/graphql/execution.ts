import type { FastifyReply, FastifyRequest } from "fastify";
import type { ExecutionResult, GraphQLFormattedError } from "graphql";
import { bindDeadline, type Deadline } from "../db/transaction.js";
import { ErrorCode } from "../errors.js";
import { codingFor } from "../http/compression.js";
import type { Actor } from "../modules/access/actor.js";
import type { Services } from "../services.js";
import type { AreaMask } from "../shared/data-areas.js";
import { createContext, type RequestBudget } from "./context.js";
import { type DocumentCache, isCompiledQuery, type PreparedDocument } from "./documents.js";
import { formatError } from "./errors.js";
import { ExecutionSlots } from "./execution-slots.js";
import { type Exchange, Refusal, sendInTwo, sendRaw, sendUnavailable } from "./http-answers.js";
import { applyCaching, sendNotModified } from "./http-caching.js";
import { extensionsTail } from "./http-extensions.js";
import type { GraphQLParams } from "./http-params.js";
import type { OperationAnalysis } from "./limits/analyze-operation.js";
import type { ApiVersion } from "./versions/api-versions.js";
import type { Deprecation } from "./versions/deprecations.js";

// Executing an admitted operation for POST/GET /api/graphql (http.ts): the execution slots, single
// flight, the request timeout, and storing a clean answer in the response cache.

// Answers computed from the clock (a ticket type's sales window opening) are not invalidated by a
// write, so cached answers also expire: exact for writes, at most this stale for the clock.
const cacheTtlMs = 30_000;

/** Runs admitted operations: see `run`. */
export function createExecutor(services: Services, documents: DocumentCache) {
  const { config } = services;
  // Executions under way per cache key, for requests that miss the same key meanwhile.
  const flights = new Map<string, Promise<Computed | undefined>>();
  // At most this many operations execute and answer at once; the others wait their turn before
  // reading anything. Fifty interleaved executions each lived fifty times longer, so their rows
  // outlived V8's young generation and filled the old one with garbage between collections (memory
  // and CPU per request both grew; docs/performance.md). SQLite runs one
  // statement at a time anyway; PostgreSQL gets as many as its pool has connections (more would
  // only wait for one inside their slot, and ran out the pool's wait as "busy"). Cache hits never
  // wait; waiting writes go first (execution-slots.ts).
  // On SQLite one read at a time: its statements run synchronously, so reads interleaved at their
  // yields gained nothing and each lived longer (an event day's read p99 was several times higher);
  // writes keep four slots, which their group commits need. A read past 50 ms (the heaviest the
  // limits admit run for a second on the ×100 demo) lets the next one start beside it.
  //
  // Fast path `execution-slots` (src/config.ts). Invariant: a waiting write goes before waiting
  // reads, and no kind starves (execution-slots.ts; guarded by execution-slots.test.ts). Nothing
  // depends on it for correctness: SQLite's writes are serialized by its one writing connection and
  // PostgreSQL's by the pool. Off, every admitted operation executes at once; on PostgreSQL, those
  // beyond the pool wait for a connection and may answer 503 when that wait runs out.
  const concurrency = services.database.poolSize ?? 4;
  const executions = config.fastPaths["execution-slots"]
    ? new ExecutionSlots({
        concurrency,
        ...(services.database.engine === "sqlite" ? { reads: 1, longReadMs: 50 } : {}),
      })
    : undefined;

  /**
   * Executes the operation and answers. A request that misses the same cache key as an execution
   * under way waits for that one's answer, without taking a slot (single flight); otherwise it takes
   * a slot, and when it had to wait for one, `again` first looks in the cache once more.
   */
  async function run(
    exchange: Exchange,
    actor: Actor,
    operation: Operation,
    budget: RequestBudget,
    again: () => Promise<boolean>,
  ): Promise<FastifyReply> {
    if (await joinedFlight(exchange, actor, operation, budget)) return exchange.reply;
    if (!executions) return execute(exchange, actor, operation, budget);
    const kind = operation.analysis.operationType === "mutation" ? "write" : "read";
    const waits = executions.wouldWait(kind);
    return executions.run(kind, async () => {
      if (waits && (await again())) return exchange.reply;
      return execute(exchange, actor, operation, budget);
    });
  }

  /** Answers with the result of an execution of the same cache key under way, if any; true once sent. */
  async function joinedFlight(
    exchange: Exchange,
    actor: Actor,
    operation: Operation,
    budget: RequestBudget,
  ): Promise<boolean> {
    const flight = operation.cacheKey ? flights.get(operation.cacheKey) : undefined;
    const shared = flight ? await flight : undefined;
    if (!shared) return false;
    services.responseCache.countShared();
    answer(exchange, actor, operation, budget, shared);
    return true;
  }

  /**
   * Runs the operation and answers. Concurrent requests for the same cache key share one execution
   * (single flight): fifty clients missing the same page at once cost one execution, not fifty.
   */
  async function execute(
    exchange: Exchange,
    actor: Actor,
    operation: Operation,
    budget: RequestBudget,
  ): Promise<FastifyReply> {
    const { cacheKey } = operation;
    if (await joinedFlight(exchange, actor, operation, budget)) return exchange.reply;
    const run = compute(exchange, actor, operation, budget);
    if (cacheKey && !flights.has(cacheKey)) {
      const shareable = run.then(
        (r) => (r.versions && r.shareable ? r : undefined),
        () => undefined,
      );
      flights.set(cacheKey, shareable);
      void shareable.then(() => flights.delete(cacheKey));
    }
    return answer(exchange, actor, operation, budget, await run);
  }

  /** Sends an executed answer with this request's extensions (versions: it may be cached publicly). */
  function answer(
    exchange: Exchange,
    actor: Actor,
    { analysis }: Operation,
    budget: RequestBudget,
    { head, versions }: Computed,
  ): FastifyReply {
    const tail = extensionsTail(analysis.cost, budget.points, budget, false);
    if (applyCaching(exchange, actor, versions)) return sendNotModified(exchange);
    // As a hit is sent: the answer's bytes, then this request's tail. Compressed, it goes whole.
    if (codingFor(exchange.request, head)) return sendRaw(exchange, 200, Buffer.concat([head, tail]));
    return sendInTwo(exchange, head, tail);
  }

  /** Runs the operation within the request timeout; a clean query answer is cached. */
  async function compute(
    exchange: Exchange,
    actor: Actor,
    { params, prepared, variables, cacheKey, areas }: Operation,
    budget: RequestBudget,
  ): Promise<Computed> {
    const { request, reply } = exchange;
    const compiled = documents.compiled(prepared, params.operationName);
    if (!isCompiledQuery(compiled)) {
      throw new Refusal(ErrorCode.GRAPHQL_VALIDATION_FAILED, formatAll(compiled, request));
    }
    // Only an answer that may be cached needs them; a write skipped reading SQLite's data_version.
    const caching = cacheKey
      ? { mark: services.responseCache.begin(), epoch: services.responseCache.epoch() }
      : undefined;
    const context = createContext(services, actor, request.id, budget, areas);
    // Past the deadline the client gets TIMEOUT at once; a write still running then rolls back
    // instead of committing (see inTransaction), and one whose COMMIT is under way is answered when
    // it ends. Only app actors can write, and each is per request.
    const deadline: Deadline = { passed: false, committing: false };
    if (actor.kind === "app") bindDeadline(actor, deadline);
    const timeoutMs = config.limits.requestTimeoutMs;
    // The time spent waiting for an execution slot counts: a request that waited out its deadline
    // is not started.
    const left = timeoutMs - reply.elapsedTime;
    const result =
      left > 0
        ? await withTimeout(compiled.query(undefined, context, variables ?? {}), left, deadline)
        : "timeout";
    if (result === "timeout") {
      deadline.passed = true;
      throw timedOut(timeoutMs);
    }
    const errors = result.errors?.length ? formatAll(result, request) : undefined;
    // The database went away while resolving: "retry shortly", not a partial answer to keep.
    if (errors?.some((e) => e.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE)) {
      throw new Unavailable(sendUnavailable(exchange, errors));
    }
    // PostgreSQL cancelled a statement at its timeout, just under the request's deadline: the same
    // answer as the deadline's own (whichever fires first), its writes rolled back.
    if (errors?.some((e) => e.extensions?.code === ErrorCode.TIMEOUT)) {
      deadline.passed = true;
      throw timedOut(timeoutMs);
    }
    // No `data` at all means the variables failed to coerce: a request error, not a field error.
    if (result.data === undefined) throw new Refusal(ErrorCode.GRAPHQL_VALIDATION_FAILED, errors ?? []);
    const head = answerHead(errors ? { errors, data: result.data } : { data: result.data });
    const internal = errors?.some((e) => e.extensions?.code === ErrorCode.INTERNAL_SERVER_ERROR);
    if (!cacheKey || !caching || internal || !context.cacheable) return { head, versions: undefined };
    const { responseCache } = services;
    responseCache.store(cacheKey, head, context.projectsRead, caching.mark, {
      ttlMs: cacheTtlMs,
      versions: context.projectVersions,
      areas,
      epoch: caching.epoch,
    });
    // Requests that joined this execution arrived after it began: they may take its answer only if
    // nothing it read changed meanwhile (an unpublish, a revoke), as far as this process can know.
    const shareable =
      caching.epoch !== undefined &&
      responseCache.epoch() === caching.epoch &&
      ![...context.projectsRead].some((id) => responseCache.changedSince(id, caching.mark));
    return { head, versions: context.projectVersions, shareable };
  }

  function formatAll(result: ExecutionResult, request: FastifyRequest): GraphQLFormattedError[] {
    return (result.errors ?? []).map((error) => formatError(error, request.id, services.logger));
  }

  return { run };
}

/**
 * An answer's bytes without the closing brace: `{"errors"…,"data":…`. One JSON.stringify makes one
 * flat string, which is measured and encoded as it is; a string built by concatenation (`"data":` +
 * JSON) is first copied into a flat one, by V8, the size of the page. Its own memory, not a slice of
 * Node's shared pool,
 * since the response cache may keep it.
 */
export function answerHead(answer: { errors?: GraphQLFormattedError[]; data: unknown }): Buffer {
  const json = JSON.stringify(answer);
  const size = Buffer.byteLength(json) - 1;
  const head = Buffer.allocUnsafeSlow(size);
  // The last character is the one-byte `}`, so every byte is written; were one not, the buffer's
  // uninitialised rest would go out to the client.
  if (head.write(json, 0, size, "utf8") !== size) throw new Error("The answer was not written whole");
  return head;
}

/** An executed answer's head (`answerHead`) and, when it may be cached, the versions it was read at. */
interface Computed {
  head: Buffer;
  versions: ReadonlyMap<string, number | null> | undefined;
  /** Whether requests that arrived during the execution may take its answer (`compute`). */
  shareable?: boolean;
}

/** The TIMEOUT refusal of an operation stopped at its deadline (or its statement's, just under it). */
function timedOut(timeoutMs: number): Refusal {
  return new Refusal(
    ErrorCode.TIMEOUT,
    `The operation ran longer than ${timeoutMs} ms and was stopped; its changes were rolled back`,
  );
}

/** The 503 already sent when the database went away during execution. */
export class Unavailable extends Error {
  constructor(readonly reply: FastifyReply) {
    super("database unavailable");
  }
}

/** A parsed, validated and measured operation, with its variables (defaults applied). */
export interface Operation {
  params: GraphQLParams;
  prepared: PreparedDocument;
  analysis: OperationAnalysis;
  variables: Record<string, unknown> | undefined;
  /**
   * The response cache key of a query (document, variables as sent, caller's view); none for writes
   * and for introspection, which has a cache of its own.
   */
  cacheKey: string | undefined;
  /** Whether it asks for introspection alone (introspection/introspection-only.ts). */
  introspectionOnly: boolean;
  /** The data areas a query reads: its answer is evicted only by writes to them. */
  areas: AreaMask;
  /** The API version it is answered in. */
  version: ApiVersion;
  /** What it uses that is going away in that version (announced in Deprecation and Sunset). */
  deprecation: Deprecation | undefined;
}

/**
 * `work`, or "timeout" once `ms` have passed; the deadline passes then too. A write whose COMMIT is
 * under way by then (`deadline.committing`) cannot be taken back, so its answer is waited for.
 */
function withTimeout<T>(work: T | Promise<T>, ms: number, deadline: Deadline): Promise<T | "timeout"> | T {
  if (!(work instanceof Promise)) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      deadline.passed = true;
      if (!deadline.committing) resolve("timeout");
    }, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
