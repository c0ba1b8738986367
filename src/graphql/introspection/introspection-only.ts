import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getOperationAST,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
} from "graphql";

// Per document, the answer for each of its operations by name ("" for the only one).
const known = new WeakMap<DocumentNode, Map<string, boolean>>();

/**
 * Whether the operation asks only for introspection: a query whose every root field, through
 * fragments and whatever `@skip`/`@include` say, is `__schema`, `__type` or `__typename`, with at
 * least one of the first two. Such an answer depends on the schema and the document alone, so it is
 * answered from a cache of its own (introspection-answers.ts). A root field read only when a
 * variable says so still counts: a document that may read data is charged as any query.
 */
export function isIntrospectionOnly(document: DocumentNode, operationName: string | undefined): boolean {
  const name = operationName ?? "";
  let answers = known.get(document);
  const remembered = answers?.get(name);
  if (remembered !== undefined) return remembered;
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  const only =
    operation.operation === OperationTypeNode.QUERY &&
    asksIntrospectionOnly(document, operation.selectionSet);
  // Only the document's own operations are remembered, so made-up names cannot grow the map.
  if (!answers) {
    answers = new Map();
    known.set(document, answers);
  }
  answers.set(name, only);
  return only;
}

function asksIntrospectionOnly(document: DocumentNode, root: SelectionSetNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // Each fragment is read once: spreads of spreads cannot make this walk grow exponentially.
  const read = new Set<string>();
  let introspection = false;
  const only = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = selection.name.value;
        if (field === "__schema" || field === "__type") introspection = true;
        else if (field !== "__typename") return false;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!only(selection.selectionSet)) return false;
      } else if (!read.has(selection.name.value)) {
        read.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (!fragment || !only(fragment.selectionSet)) return false;
      }
    }
    return true;
  };
  return only(root) && introspection;
}
