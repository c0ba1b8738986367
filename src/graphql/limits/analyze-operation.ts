/**
 * Static analysis of one GraphQL operation before it runs: cost, depth, node count, aliases,
 * directives, tokens, and the permissions its fields declare.
 *
 * The cost is an upper bound on the objects the answer can contain and the rows it can read
 * (docs/security.md): the property test in test/api/cost-bound.test.ts checks it on the real server.
 * - Every field costs 1; a field returning objects counts its subtree at least 1 per object.
 *   `__typename` costs 0, but an operation costs at least 1 (its root object).
 * - A connection is a field that declares a `first` or `last` argument. Its subtree is multiplied by
 *   its page size: the larger of `first`/`last` (variables resolved), 20 when neither is given,
 *   counted as at most 100. So `sessions(first: 10) { nodes { speakers(first: 5) { nodes { name } } } }`
 *   costs 1 + 10 × (1 + 1 + 5 × (1 + 1)) = 121.
 * - A plain list field of objects declares the most items it returns, `extensions: {cost: {maxItems}}`
 *   (its resolver must never return more), and multiplies its subtree by that.
 *   `checkSchemaExtensions` (field-extensions.ts) fails on a list of objects that declares nothing.
 * - A field may declare its own cost in its schema extensions (Pothos: `extensions: {cost: ...}`):
 *   `{cost: {value?: number, multiplierArgs?: string[], maxItems?: number}}`. `value` replaces the
 *   field's own cost of 1 (use it for fields that do expensive work, such as counting rows).
 *   `multiplierArgs` names the arguments whose value multiplies the subtree: a number counts as
 *   itself, a list as its length, the largest one wins and 1 when none is given (use it for
 *   `nodes(ids: [ID!]!)`-style fields); with `maxItems` a longer list is refused as QUERY_TOO_COMPLEX.
 *   On a connection it replaces `first`/`last`, keeping the connection's default page size and cap.
 *   `argumentCosts` adds to the field's own cost when an argument is given (an attendee search
 *   costs 100: it reads up to 2,000 index entries and rows).
 * - `totalCount` costs 100: a count reads index entries rather than rows, but all of them.
 * - Each root field of a mutation costs `writeCost` (10) unless it declares more: a write takes a
 *   transaction, locks and invalidates caches. Aliased mutations each count.
 * - `__schema` and `__type` cost the exact size of their answer (introspection-cost.ts).
 * - Fragments and inline fragments are expanded where they are spread; `@skip`/`@include` are
 *   honoured. Each named fragment is measured once and reused, so nested spreads cannot make the
 *   analysis itself exponential.
 *
 * nodeCount is the number of objects the paged fields can return: each paged field adds its page
 * size times the page sizes above it (`sessions(first: 10) { speakers(first: 5) }` → 10 + 50 = 60).
 *
 * Permission convention: a field that needs a permission declares it in its extensions,
 * `extensions: {permission: "agenda:read"}`, with a name from modules/access/permissions.ts.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isCompositeType,
  isIntrospectionType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TokenKind,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
} from "graphql";
import { AppError, ErrorCode } from "../../errors.js";
import { allPermissions, type Permission } from "../../modules/access/permissions.js";
import { costExtension, permissionExtension } from "./field-extensions.js";
import { introspectionCost } from "./introspection-cost.js";
import {
  defaultMaxCost,
  type OperationLimits,
  operationLimitDefaults,
  tooComplex,
  writeCost,
} from "./operation-limits.js";

/** What `analyzeOperation` measures. */
export interface OperationAnalysis {
  operationType: OperationTypeNode;
  cost: number;
  depth: number;
  nodeCount: number;
  aliases: number;
  directives: number;
  /** Fields of introspection in the answer (part of `cost`). */
  introspection: number;
  /** Lexical tokens of the whole document; absent when it was parsed without locations. */
  tokens?: number | undefined;
  /** Every permission the executed fields declare, in catalogue order. */
  permissions: Permission[];
}

/** Arguments of `analyzeOperation`. */
export interface AnalyzeOperationInput {
  schema: GraphQLSchema;
  /** A parsed document that already passed `validate(schema, document)`. */
  document: DocumentNode;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
  /** Only the page-size settings are read here; `assertWithinLimits` compares the rest. */
  limits?:
    | (Pick<OperationLimits, "defaultPageSize" | "maxPageSize" | "maxCost"> &
        Partial<Pick<OperationLimits, "maxIntrospection">>)
    | undefined;
}

interface Summary {
  cost: number;
  depth: number;
  nodes: number;
  aliases: number;
  directives: number;
  permissions: Set<Permission>;
}

const empty = (): Summary => ({
  cost: 0,
  depth: 0,
  nodes: 0,
  aliases: 0,
  directives: 0,
  permissions: new Set(),
});

function badRequest(message: string): AppError {
  return new AppError(ErrorCode.BAD_USER_INPUT, message);
}

/**
 * The operation's variables coerced to their declared types; throws BAD_USER_INPUT (the message
 * graphql-js gives at execution) when they do not fit.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, {
    maxErrors: 1,
  });
  if (coerced.errors) throw badRequest(coerced.errors[0]?.message ?? "Invalid variables.");
  return coerced.coerced;
}

/**
 * Measures the operation that would run for `operationName` with `variables`. Throws BAD_USER_INPUT
 * when the operation cannot be chosen or the variables do not fit their declared types (the same
 * messages graphql-js gives at execution).
 */
export function analyzeOperation(input: AnalyzeOperationInput): OperationAnalysis {
  const { schema, document } = input;
  const pageSizes = input.limits ?? operationLimitDefaults;
  // Introspection is measured by walking its answer; past the limit the exact figure is moot.
  const stopAbove = Math.min(
    input.limits?.maxCost ?? defaultMaxCost,
    input.limits?.maxIntrospection ?? operationLimitDefaults.maxIntrospection,
  );
  let introspectionSpent = 0;
  const operation = getOperationAST(document, input.operationName ?? undefined);
  if (!operation) {
    throw badRequest(
      input.operationName
        ? `Unknown operation named "${input.operationName}".`
        : "Must provide operation name if query contains multiple operations.",
    );
  }
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) throw badRequest(`Schema is not configured to execute ${operation.operation} operation.`);
  const variables = coerceVariables(schema, operation, input.variables);

  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measuredFragments = new Map<string, Summary>();
  // A fragment being measured; spreading it again inside itself is a cycle (validation rejects those).
  const inProgress = new Set<string>();

  const included = (node: FieldNode | SelectionSetNode["selections"][number]): boolean => {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  };

  const fieldDefinition = (
    parent: GraphQLCompositeType,
    name: string,
  ): GraphQLField<unknown, unknown> | undefined => {
    if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
    if (parent === schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return "getFields" in parent ? parent.getFields()[name] : undefined;
  };

  const multiplierOf = (
    field: GraphQLField<unknown, unknown>,
    node: FieldNode,
  ): { factor: number; paged: boolean } => {
    const cost = costExtension(field);
    const connection = field.args.some((arg) => arg.name === "first" || arg.name === "last");
    const names = cost?.multiplierArgs ?? (connection ? ["first", "last"] : []);
    if (names.length === 0) {
      return cost?.maxItems === undefined
        ? { factor: 1, paged: false }
        : { factor: cost.maxItems, paged: true };
    }
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(field, node, variables);
    } catch (error) {
      throw badRequest(error instanceof Error ? error.message : String(error));
    }
    const given = names
      .map((name) => args[name])
      .filter((value) => value !== undefined && value !== null)
      .map((value) => (Array.isArray(value) ? value.length : typeof value === "number" ? value : 1));
    let factor = given.length > 0 ? Math.max(...given) : connection ? pageSizes.defaultPageSize : 1;
    // `first: 0` still answers the connection's own fields (totalCount, pageInfo) once.
    if (connection) factor = Math.max(1, Math.min(factor, pageSizes.maxPageSize));
    else if (cost?.maxItems !== undefined && factor > cost.maxItems) {
      throw tooComplex(`${field.name}.${names.join("|")}`, factor, cost.maxItems);
    }
    return { factor: Math.max(0, Math.floor(factor)), paged: true };
  };

  const argumentCost = (field: GraphQLField<unknown, unknown>, node: FieldNode): number => {
    const costs = costExtension(field)?.argumentCosts;
    if (!costs) return 0;
    const args = getArgumentValues(field, node, variables);
    let sum = 0;
    for (const [name, cost] of Object.entries(costs)) {
      if (args[name] !== undefined && args[name] !== null) sum += cost;
    }
    return sum;
  };

  const measureFragment = (fragment: FragmentDefinitionNode): Summary => {
    const name = fragment.name.value;
    const known = measuredFragments.get(name);
    if (known) return known;
    if (inProgress.has(name)) return empty();
    inProgress.add(name);
    const type = schema.getType(fragment.typeCondition.name.value);
    const summary = isCompositeType(type) ? measureSelections(type, fragment.selectionSet) : empty();
    inProgress.delete(name);
    measuredFragments.set(name, summary);
    return summary;
  };

  // Fragments add to their parent's selection without a level of their own.
  const addFlat = (into: Summary, part: Summary): void => {
    into.cost += part.cost;
    into.depth = Math.max(into.depth, part.depth);
    into.nodes += part.nodes;
    into.aliases += part.aliases;
    into.directives += part.directives;
    for (const permission of part.permissions) into.permissions.add(permission);
  };

  const measureField = (parent: GraphQLCompositeType, node: FieldNode, into: Summary): void => {
    if (node.alias) into.aliases += 1;
    const field = fieldDefinition(parent, node.name.value);
    // Unknown fields only occur in unvalidated documents; count them like a plain field.
    if (!field) {
      into.cost += 1;
      into.depth = Math.max(into.depth, 1);
      return;
    }
    const introspection = node.name.value.startsWith("__") || isIntrospectionType(parent as GraphQLNamedType);
    const root = parent === rootType;
    const declared = costExtension(field)?.value;
    const extra = introspection ? 0 : argumentCost(field, node);
    const own = introspection
      ? 0
      : root && operation.operation === OperationTypeNode.MUTATION
        ? Math.max(declared ?? 1, writeCost)
        : (declared ?? 1);
    const permission = introspection ? undefined : permissionExtension(field);
    if (permission) into.permissions.add(permission);
    const childType = getNamedType(field.type);
    const children =
      node.selectionSet && isCompositeType(childType)
        ? measureSelections(childType, node.selectionSet)
        : empty();
    const { factor, paged } = introspection ? { factor: 1, paged: false } : multiplierOf(field, node);
    // Every object returned counts, even one whose only selection is the free `__typename`.
    const perItem = node.selectionSet ? Math.max(1, children.cost) : children.cost;
    if (root && (field === SchemaMetaFieldDef || field === TypeMetaFieldDef)) {
      // Aliases walk again, so the bound is what the earlier walks left of the limit.
      const spent = introspectionCost(node, field, {
        schema,
        fragments,
        variables,
        stopAbove: stopAbove - introspectionSpent,
      });
      introspectionSpent += spent;
      into.cost += spent;
    } else {
      into.cost += own + extra + factor * perItem;
    }
    into.nodes += (paged ? factor : 0) + factor * children.nodes;
    into.depth = Math.max(into.depth, 1 + children.depth);
    into.aliases += children.aliases;
    into.directives += children.directives;
    for (const p of children.permissions) into.permissions.add(p);
  };

  const measureSelections = (parent: GraphQLCompositeType, selectionSet: SelectionSetNode): Summary => {
    const summary = empty();
    for (const selection of selectionSet.selections) {
      // Directives are counted even on skipped selections: they are evaluated all the same.
      summary.directives += selection.directives?.length ?? 0;
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        measureField(parent, selection, summary);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parent;
        if (isCompositeType(condition))
          addFlat(summary, measureSelections(condition, selection.selectionSet));
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) addFlat(summary, measureFragment(fragment));
      }
    }
    return summary;
  };

  const summary = measureSelections(rootType, operation.selectionSet);
  summary.directives += operation.directives?.length ?? 0;
  return {
    operationType: operation.operation,
    // The answer's root object counts too: `{ __typename }` returns one field.
    cost: Math.max(1, summary.cost),
    depth: summary.depth,
    nodeCount: summary.nodes,
    aliases: summary.aliases,
    directives: summary.directives,
    introspection: introspectionSpent,
    tokens: countTokens(document),
    permissions: allPermissions.filter((p) => summary.permissions.has(p)),
  };
}

/** The permissions in `needed` that `granted` lacks, in catalogue order. */
export function permissionsLacking(
  needed: Iterable<Permission>,
  granted: Iterable<Permission>,
): Permission[] {
  const have = new Set(granted);
  const want = new Set(needed);
  return allPermissions.filter((p) => want.has(p) && !have.has(p));
}

/**
 * The permissions the operation's fields declare that `granted` lacks (empty: it may run). The
 * handler that already holds an `OperationAnalysis` can call `permissionsLacking(analysis.permissions, …)`
 * instead of walking the document again.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export function missingPermissions(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  granted: Iterable<Permission>,
  operationName?: string | null,
): Permission[] {
  return permissionsLacking(
    analyzeOperation({ schema, document, variables, operationName }).permissions,
    granted,
  );
}

// The parser links every token of a located document; comments are linked too but not counted
// by `parse(…, {maxTokens})`, so they are skipped here as well.
function countTokens(document: DocumentNode): number | undefined {
  const start = document.loc?.startToken;
  if (!start) return undefined;
  let count = 0;
  for (let token = start.next; token && token.kind !== TokenKind.EOF; token = token.next) {
    if (token.kind !== TokenKind.COMMENT) count += 1;
  }
  return count;
}
