import { createHash } from "node:crypto";
import { type DocumentNode, execute, type GraphQLSchema, print } from "graphql";
import { LRUCache } from "lru-cache";
import { ErrorCode } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { canonicalJson } from "../cache/cache-key.js";
import { formatError } from "../errors.js";
import { answerHead, type Operation } from "../execution.js";
import { Refusal } from "../http-answers.js";
import type { StoredBytes } from "../stored-answer.js";

/** An introspection answer: its bytes as an executed answer's head (`{"data":…`, no closing brace). */
export interface IntrospectionAnswer extends StoredBytes {
  /**
   * Its validator, a digest of those bytes, which the schema and the document alone decide. Weak:
   * what goes out after them, the caller's budget, differs per request (RFC 9110 §8.8.1). Absent
   * from an answer with errors, which is neither kept nor validated.
   */
  etag: string | undefined;
}

/** Sizes of the cache. */
export interface IntrospectionAnswersOptions {
  /** Answers kept; default 32 (clients send a handful of distinct introspection documents). */
  maxEntries?: number;
  /** Bytes of answers and keys kept; default 8 MiB (the full schema's answer is ~155 KB). */
  maxBytes?: number;
}

// Beyond its bytes and key, what an entry holds (the entry, its tag, the LRU's slots).
const entryOverhead = 512;

/**
 * The answers of introspection-only operations (introspection-only.ts), kept by what decides them:
 * the schema, fixed for the life of this object (one per process and schema), and the operation as
 * printed (so layout and comments do not count), its name and its variables. Nothing but a new
 * schema changes them, so nothing invalidates them; the least recently used go when the cache is
 * full. Bounded in count and bytes, so documents made up to fill it cost only what their misses
 * are charged.
 */
export class IntrospectionAnswers {
  private readonly entries: LRUCache<string, IntrospectionAnswer>;
  private readonly printed = new WeakMap<DocumentNode, string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly logger: Logger,
    { maxEntries = 32, maxBytes = 8 * 1024 * 1024 }: IntrospectionAnswersOptions = {},
  ) {
    this.entries = new LRUCache({
      max: maxEntries,
      maxSize: maxBytes,
      sizeCalculation: (answer, key) => answer.body.byteLength + key.length * 2 + entryOverhead,
    });
  }

  /** The key of the operation's answer. */
  keyOf({ prepared, params, variables }: Operation): string {
    const { document } = prepared;
    let text = this.printed.get(document);
    if (text === undefined) {
      text = print(document);
      this.printed.set(document, text);
    }
    // A NUL cannot occur in an operation name and is escaped in JSON: the parts cannot run together.
    return `${params.operationName ?? ""}\u0000${canonicalJson(variables)}\u0000${text}`;
  }

  /** The kept answer for `key`, if any. */
  get(key: string): IntrospectionAnswer | undefined {
    return this.entries.get(key);
  }

  /**
   * Executes the operation and keeps its answer under `key` when it has no errors. Synchronous, as
   * graphql-js answers introspection: requests that were waiting for the same answer find it kept
   * when they resume, and none executes it again.
   */
  compute(operation: Operation, key: string, requestId: string): IntrospectionAnswer {
    const result = execute({
      schema: this.schema,
      document: operation.prepared.document,
      operationName: operation.params.operationName,
      variableValues: operation.variables,
    });
    // Introspection and __typename resolve without a promise; anything else here is a mistake.
    if (result instanceof Promise) throw new Error("An introspection-only operation answered asynchronously");
    const errors = result.errors?.map((error) => formatError(error, requestId, this.logger));
    // No `data` at all: the variables failed to coerce, a request error as in execution.ts.
    if (result.data === undefined) {
      throw new Refusal(ErrorCode.GRAPHQL_VALIDATION_FAILED, errors ?? []);
    }
    const body = answerHead(errors ? { errors, data: result.data } : { data: result.data });
    if (errors) return { body, encoded: {}, etag: undefined };
    const digest = createHash("sha256").update(body).digest("base64url").slice(0, 27);
    const answer: IntrospectionAnswer = { body, encoded: {}, etag: `W/"i-${digest}"` };
    this.entries.set(key, answer);
    return answer;
  }
}
