import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  type OperationDefinitionNode,
  parse,
  validate,
} from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import { LRUCache } from "lru-cache";

/** A document that parsed and validated against the schema, with its compiled operations. */
export interface PreparedDocument {
  document: DocumentNode;
  compiled: Map<string, CompiledQuery | ExecutionResult>;
}

export type PrepareResult =
  | { ok: true; prepared: PreparedDocument }
  | { ok: false; stage: "parse" | "validate"; errors: readonly GraphQLError[] };

/**
 * Parsing, validation and JIT compilation are paid once per distinct document text: apps send the
 * same few queries again and again. Bounded LRU, so arbitrary documents cannot grow memory.
 */
export class DocumentCache {
  private readonly cache: LRUCache<string, PrepareResult>;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly parseOptions: { maxTokens: number },
    maxEntries = 1000,
  ) {
    this.cache = new LRUCache({ max: maxEntries });
  }

  /** The parsed and validated document for `source`, or the parse/validation errors. */
  prepare(source: string): PrepareResult {
    const cached = this.cache.get(source);
    if (cached) return cached;
    const result = this.prepareUncached(source);
    this.cache.set(source, result);
    return result;
  }

  private prepareUncached(source: string): PrepareResult {
    let document: DocumentNode;
    try {
      document = parse(source, { maxTokens: this.parseOptions.maxTokens });
    } catch (error) {
      return {
        ok: false,
        stage: "parse",
        errors: [error instanceof GraphQLError ? error : new GraphQLError(String(error))],
      };
    }
    const errors = validate(this.schema, document);
    if (errors.length > 0) return { ok: false, stage: "validate", errors };
    return { ok: true, prepared: { document, compiled: new Map() } };
  }

  /** The operation to run, or undefined when the name does not match (or is needed and missing). */
  operation(
    prepared: PreparedDocument,
    operationName: string | undefined,
  ): OperationDefinitionNode | undefined {
    return getOperationAST(prepared.document, operationName) ?? undefined;
  }

  /** The JIT-compiled operation, compiled once per document and operation name. */
  compiled(prepared: PreparedDocument, operationName: string | undefined): CompiledQuery | ExecutionResult {
    const key = operationName ?? "";
    let compiled = prepared.compiled.get(key);
    if (!compiled) {
      compiled = compileQuery(this.schema, prepared.document, operationName, {
        disablingCapturingStackErrors: true,
      });
      prepared.compiled.set(key, compiled);
    }
    return compiled;
  }
}

export { isCompiledQuery };
