import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  validate,
  valueFromASTUntyped,
} from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import { LRUCache } from "lru-cache";
import { AppError } from "../errors.js";
import { measuredArguments, shapeKey, type VariableShape, variableShape } from "./limits/analysis-key.js";
import { analyzeOperation, coerceVariables, type OperationAnalysis } from "./limits/analyze-operation.js";
import { type OperationLimits, tooComplex } from "./limits/operation-limits.js";
import { countSelections, parseDocument } from "./limits/parse-document.js";

/** A document that parsed and validated against the schema, with what was derived from it so far. */
export interface PreparedDocument {
  document: DocumentNode;
  /** JIT-compiled operations by operation name. */
  compiled: Map<string, CompiledQuery | ExecutionResult>;
  /** Measures by operation name and variables: page sizes often come from variables. */
  analyses: LRUCache<string, OperationAnalysis>;
  /** What each operation's measure reads of its variables (see analysis-key.ts), by operation name. */
  shapes: Map<string, VariableShape | undefined>;
  /** Selections written in the document (see countSelections): what validating it cost. */
  selections: number;
}

/** `selections`: as in PreparedDocument, 0 when the document was refused before validation. */
export type PrepareResult =
  | { ok: true; prepared: PreparedDocument }
  | { ok: false; error: AppError; selections: number }
  | { ok: false; validationErrors: readonly GraphQLError[]; selections: number };

/**
 * Parsing, validation, measuring and JIT compilation are paid once per distinct document text: apps
 * send the same few documents again and again. Bounded LRU, so arbitrary documents cannot grow memory.
 */
export class DocumentCache {
  private readonly cache: LRUCache<string, PrepareResult>;
  private readonly measured: ReadonlySet<string>;

  private readonly jit: boolean;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: OperationLimits,
    { jit = true, maxEntries = 1000 }: { jit?: boolean; maxEntries?: number } = {},
  ) {
    this.jit = jit;
    this.cache = new LRUCache({ max: maxEntries });
    this.measured = measuredArguments(schema);
  }

  /**
   * The selections `source` would cost to validate, parsing it (bounded by the token limit) when it
   * was not prepared before; undefined when the answer is known without validating (cached, or
   * refused while parsing or counting). Lets a caller pay for validation before it happens.
   */
  selectionsToValidate(source: string): number | undefined {
    if (this.cache.has(source)) return undefined;
    const parsed = this.parse(source);
    if (!("document" in parsed)) {
      this.cache.set(source, parsed);
      return undefined;
    }
    this.parsed = { source, ...parsed };
    return parsed.selections;
  }

  /** The parsed and validated document for `source`, or why it is refused. */
  prepare(source: string): PrepareResult {
    const cached = this.cache.get(source);
    if (cached) return cached;
    const parsed = this.parsed?.source === source ? this.parsed : this.parse(source);
    this.parsed = undefined;
    const result = "document" in parsed ? this.validated(parsed.document, parsed.selections) : parsed;
    this.cache.set(source, result);
    return result;
  }

  // The document `selectionsToValidate` parsed last: the request that asked validates it next.
  private parsed: { source: string; document: DocumentNode; selections: number } | undefined;

  private parse(source: string): { document: DocumentNode; selections: number } | PrepareResult {
    let document: DocumentNode;
    try {
      document = parseDocument(source, this.limits.maxTokens);
    } catch (error) {
      if (error instanceof AppError) return { ok: false, error, selections: 0 };
      throw error;
    }
    const selections = countSelections(document);
    if (selections > this.limits.maxSelections) {
      const error = tooComplex("selections", selections, this.limits.maxSelections);
      return { ok: false, error, selections: 0 };
    }
    return { document, selections };
  }

  private validated(document: DocumentNode, selections: number): PrepareResult {
    const validationErrors = validate(this.schema, document);
    if (validationErrors.length > 0) return { ok: false, validationErrors, selections };
    return {
      ok: true,
      prepared: {
        document,
        compiled: new Map(),
        analyses: new LRUCache({ max: 64 }),
        shapes: new Map(),
        selections,
      },
    };
  }

  /**
   * Measures the operation for these variables (throws BAD_USER_INPUT for a bad name or variables).
   * `variablesJson` is their `canonicalJson`, computed once per request for this and the cache key.
   * Variables that only differ where the measure does not look (a page's cursor) share one
   * measure; they are still checked against their types on every request.
   */
  analyze(
    prepared: PreparedDocument,
    operationName: string | undefined,
    variables: Record<string, unknown> | undefined,
    variablesJson: string,
  ): OperationAnalysis {
    const key = `${operationName ?? ""}\u0000${variablesJson}`;
    let analysis = prepared.analyses.get(key);
    if (analysis) return analysis;
    const name = operationName ?? "";
    let shape = prepared.shapes.get(name);
    if (!prepared.shapes.has(name)) {
      shape = variableShape(prepared.document, operationName, this.measured);
      // Only the document's own operations are remembered: a made-up name is refused below, and
      // remembering each one would let a client grow the map without bound.
      if (getOperationAST(prepared.document, operationName)) prepared.shapes.set(name, shape);
    }
    // \u0001 keeps these keys apart from the exact ones above.
    const shaped = shape && `\u0001${name}${shapeKey(shape, variables)}`;
    analysis = shaped ? prepared.analyses.get(shaped) : undefined;
    if (shape && analysis) coerceVariables(this.schema, shape.operation, variables);
    else {
      analysis = analyzeOperation({
        schema: this.schema,
        document: prepared.document,
        variables,
        operationName,
        limits: this.limits,
      });
      if (shaped) prepared.analyses.set(shaped, analysis);
    }
    prepared.analyses.set(key, analysis);
    return analysis;
  }

  /**
   * The variables with each omitted one that declares a default set to it, as the GraphQL spec's
   * CoerceVariableValues does. graphql-jit refuses an omitted non-null variable even when it has a
   * default (`query ($id: ID! = "AbC1")`), so the defaults are filled in before it sees them.
   */
  withDefaults(
    prepared: PreparedDocument,
    operationName: string | undefined,
    variables: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    const definitions = getOperationAST(prepared.document, operationName)?.variableDefinitions ?? [];
    let filled = variables;
    for (const definition of definitions) {
      const name = definition.variable.name.value;
      if (!definition.defaultValue || (variables && Object.hasOwn(variables, name))) continue;
      // One copy, never the client's object (a repeated body's is frozen and shared), filled in
      // place: on Node 20 a spread followed by a member is far slower.
      if (filled === variables) filled = Object.assign({}, variables);
      // A default is a constant (no variables inside), so its plain JSON value is what a client sends.
      (filled as Record<string, unknown>)[name] = valueFromASTUntyped(definition.defaultValue);
    }
    return filled;
  }

  /**
   * The JIT-compiled operation, compiled once per document and operation name. Compiling is
   * synchronous and grows with the document: 70 aliased pages took ~160 ms of one event-loop turn,
   * nine introspection queries seconds. Large documents and introspection, which are rarely repeated,
   * run on graphql-js's interpreter instead (docs/security.md).
   *
   * Fast path `jit` (src/config.ts; off: every document runs on graphql-js). Invariant: a compiled
   * operation answers what graphql-js answers, errors included (documents.test.ts, and the API
   * tests, which CI also runs with EVENTGRAPH_FAST_PATHS=off).
   */
  compiled(prepared: PreparedDocument, operationName: string | undefined): CompiledQuery | ExecutionResult {
    const key = operationName ?? "";
    let compiled = prepared.compiled.get(key);
    if (!compiled) {
      const source = prepared.document.loc?.source.body ?? "";
      compiled =
        !this.jit || source.length > maxCompiledSourceLength || /\b__(schema|type)\b/.test(source)
          ? interpreted(this.schema, prepared.document, operationName)
          : compileQuery(this.schema, prepared.document, operationName, {
              disablingCapturingStackErrors: true,
            });
      prepared.compiled.set(key, compiled);
    }
    return compiled;
  }
}

// Typical app documents are well under this; the largest admitted ones are 25 times longer.
const maxCompiledSourceLength = 4_000;

// The CompiledQuery shape around graphql-js's `execute`, so the handler runs either the same way.
function interpreted(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): CompiledQuery {
  return {
    query: (rootValue, contextValue, variableValues) =>
      execute({ schema, document, rootValue, contextValue, variableValues, operationName }),
  } as CompiledQuery;
}

export { isCompiledQuery };
