/**
 * The cost of an introspection selection (`__schema`, `__type`), counted exactly against this
 * schema: every field the answer would contain costs 1, so the cost is the size of the answer.
 *
 * Introspection answers from memory, but it is not free: one `__schema` answer is ~45 KB and 99
 * aliases of it once answered 4.5 MB for a cost of 0. A static "largest list × largest list" bound
 * would price the standard introspection query near a million and break every GraphQL client, so
 * the answer is walked instead, with graphql-js's own introspection resolvers on the schema's
 * objects. The walk stops as soon as the count passes `stopAbove` (the cost limit), so the work of
 * measuring is bounded by the limit however the document nests `type { fields { type … } }`.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
} from "graphql";

/** What the walk needs from the operation being measured. */
export interface IntrospectionScope {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** The walk stops once the count exceeds this; the returned cost is then just above it. */
  stopAbove: number;
}

// Thrown to unwind the walk once the limit is passed; never leaves this module.
class Exceeded {
  constructor(readonly count: number) {}
}

/**
 * The number of fields the answer to `node` (a `__schema` or `__type` field of the query root)
 * would contain, counting the field itself and at least 1 per returned object.
 */
export function introspectionCost(
  node: FieldNode,
  field: GraphQLField<unknown, unknown>,
  scope: IntrospectionScope,
): number {
  let count = 0;
  const add = (n: number) => {
    count += n;
    if (count > scope.stopAbove) throw new Exceeded(count);
  };

  const included = (selection: SelectionSetNode["selections"][number]): boolean => {
    if (getDirectiveValues(GraphQLSkipDirective, selection, scope.variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, selection, scope.variables)?.if !== false;
  };

  // Introspection types are object types, so a fragment applies when it names the type or none.
  const collect = (type: GraphQLObjectType, set: SelectionSetNode, into: FieldNode[]): FieldNode[] => {
    for (const selection of set.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) into.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition?.name.value;
        if (on === undefined || on === type.name) collect(type, selection.selectionSet, into);
      } else {
        const fragment = scope.fragments.get(selection.name.value);
        if (fragment && fragment.typeCondition.name.value === type.name)
          collect(type, fragment.selectionSet, into);
      }
    }
    return into;
  };

  const walkValue = (type: GraphQLObjectType, value: unknown, set: SelectionSetNode): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value) walkValue(type, item, set);
      return;
    }
    // Each returned object counts at least once, even when only `__typename` is selected.
    const before = count;
    for (const selection of collect(type, set, [])) walkField(type, value, selection);
    if (count === before) add(1);
  };

  const walkField = (parent: GraphQLObjectType, source: unknown, selection: FieldNode): void => {
    if (selection.name.value === "__typename") return;
    const definition = parent.getFields()[selection.name.value];
    if (definition) walkDefined(parent, definition, source, selection);
  };

  // graphql-js's introspection resolvers read only `schema` from the resolve info; the rest is
  // filled in truly all the same, so no resolver can find a field missing.
  const fragments = Object.fromEntries(scope.fragments);
  const operation: OperationDefinitionNode = {
    kind: Kind.OPERATION_DEFINITION,
    operation: OperationTypeNode.QUERY,
    selectionSet: { kind: Kind.SELECTION_SET, selections: [node] },
  };
  const resolveInfo = (
    parent: GraphQLObjectType,
    definition: GraphQLField<unknown, unknown>,
    selection: FieldNode,
  ): GraphQLResolveInfo => ({
    fieldName: definition.name,
    fieldNodes: [selection],
    returnType: definition.type,
    parentType: parent,
    path: { prev: undefined, key: selection.alias?.value ?? definition.name, typename: parent.name },
    schema: scope.schema,
    fragments,
    rootValue: undefined,
    operation,
    variableValues: scope.variables,
  });

  const walkDefined = (
    parent: GraphQLObjectType,
    definition: GraphQLField<unknown, unknown>,
    source: unknown,
    selection: FieldNode,
  ): void => {
    add(1);
    const type = getNamedType(definition.type);
    if (!selection.selectionSet || !isObjectType(type)) return;
    const args = getArgumentValues(definition, selection, scope.variables);
    const info = resolveInfo(parent, definition, selection);
    const value = definition.resolve ? definition.resolve(source, args, undefined, info) : undefined;
    walkValue(type, value, selection.selectionSet);
  };

  const queryType = scope.schema.getQueryType();
  if (!queryType) throw new Error("Introspection needs a schema with a query type");
  try {
    walkDefined(queryType, field, undefined, node);
  } catch (error) {
    if (error instanceof Exceeded) return error.count;
    throw error;
  }
  return count;
}
