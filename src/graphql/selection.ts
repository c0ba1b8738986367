import {
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
  getNamedType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from "graphql";
import type { Columns } from "../db/projection.js";

/**
 * Field options declaring the columns of the parent's row that the field reads, for
 * `selectedColumns`: `...reads<SessionRow>("room_id")`; none for a field that needs only the
 * row's key. A field without the declaration makes a selection read every column, so a new field
 * is never short of data, only slower. `more` merges other extensions (a list bound).
 */
export function reads<Row>(
  columns: readonly (keyof Row & string)[],
  more: { extensions?: Record<string, unknown> } = {},
) {
  return { extensions: { ...more.extensions, columns } };
}

function declaredColumns(field: GraphQLField<unknown, unknown> | undefined): readonly string[] | undefined {
  const columns = field?.extensions.columns;
  return Array.isArray(columns) ? (columns as string[]) : undefined;
}

// The selection sets below `fieldNodes` along `path` (e.g. a connection's edges → node), through
// fragments, and the type they select on.
function descend(
  info: GraphQLResolveInfo,
  path: readonly string[],
): { type: GraphQLNamedType; sets: SelectionSetNode[] } | undefined {
  let type = getNamedType(info.returnType);
  let sets = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path) {
    if (!isObjectType(type)) return undefined;
    const field = type.getFields()[name];
    if (!field) return undefined;
    type = getNamedType(field.type);
    sets = fieldsOf(info, sets).flatMap((node) =>
      node.name.value === name && node.selectionSet ? [node.selectionSet] : [],
    );
  }
  return { type, sets };
}

function fieldsOf(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[]): FieldNode[] {
  return sets.flatMap((set) =>
    set.selections.flatMap((selection): FieldNode[] => {
      if (selection.kind === Kind.FIELD) return [selection];
      if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(info, [selection.selectionSet]);
      const fragment = info.fragments[selection.name.value];
      return fragment ? fieldsOf(info, [fragment.selectionSet]) : [];
    }),
  );
}

/**
 * A reader of the columns that the fields selected at `path` below a resolver's field declare
 * (`reads`), sorted; undefined (every column) when one of them declares nothing. Skip and include
 * directives are ignored: reading a column a skipped field would have used is harmless. A
 * compiled document passes the same field nodes to every execution, so each is worked out once.
 */
export function columnSelector(path: readonly string[] = []): (info: GraphQLResolveInfo) => Columns {
  const known = new WeakMap<readonly FieldNode[], { columns: Columns }>();
  return (info) => {
    let found = known.get(info.fieldNodes);
    if (!found) {
      found = { columns: selectedColumns(info, path) };
      known.set(info.fieldNodes, found);
    }
    return found.columns;
  };
}

function selectedColumns(info: GraphQLResolveInfo, path: readonly string[]): Columns {
  const below = descend(info, path);
  if (!below || !isObjectType(below.type)) return undefined;
  const fields = below.type.getFields();
  const columns = new Set<string>();
  for (const node of fieldsOf(info, below.sets)) {
    if (node.name.value === "__typename") continue;
    const declared = declaredColumns(fields[node.name.value]);
    if (!declared) return undefined;
    for (const column of declared) columns.add(column);
  }
  return [...columns].sort();
}
