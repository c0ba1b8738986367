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
import type { GraphQLContext } from "./context.js";
import { guardColumn } from "./permissions.js";

/**
 * Field options declaring the columns of the parent's row that the field reads, for
 * `selectedColumns`: `...reads<SessionRow>("room_id")`; none for a field that needs only the
 * row's key, where its statement always reads the key (`projectedQuery`'s `always`). A field without
 * the declaration makes a selection read every column, so a new field is never short of data, only
 * slower; the column a permission guard reads is added by `guardColumn`. `more` merges other
 * extensions (a list bound).
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
export function columnSelector(
  path: readonly string[] = [],
): (info: GraphQLResolveInfo, context: GraphQLContext) => Columns {
  const known = new WeakMap<readonly FieldNode[], { columns: Columns }>();
  return (info, context) => {
    let found = known.get(info.fieldNodes);
    if (!found) {
      found = { columns: selectedColumns(info, path) };
      known.set(info.fieldNodes, found);
    }
    return projected(found.columns, context);
  };
}

/**
 * Fast path `projection` (src/config.ts), checked here, through which every column list of the API
 * goes (columnSelector, the preloads): off, every statement reads every column (undefined).
 * Invariant: a row read with a column list is seen only by the fields that declared those columns
 * (db/projection.ts); guarded by selection.test.ts and test/api/statement-count.test.ts.
 */
function projected(columns: Columns, context: GraphQLContext): Columns {
  return context.services.config.fastPaths.projection ? columns : undefined;
}

function selectedColumns(info: GraphQLResolveInfo, path: readonly string[]): Columns {
  const below = descend(info, path);
  if (!below || !isObjectType(below.type)) return undefined;
  const fields = below.type.getFields();
  const columns = new Set<string>();
  for (const node of fieldsOf(info, below.sets)) {
    if (node.name.value === "__typename") continue;
    const field = fields[node.name.value];
    const declared = declaredColumns(field);
    if (!field || !declared) return undefined;
    for (const column of declared) columns.add(column);
    const guard = guardColumn(below.type, field);
    if (guard) columns.add(guard);
  }
  return [...columns].sort();
}

/**
 * What a field loads for a whole page of its parents at once (a `RelationLoader`'s `preload`),
 * declared in its options: `...preloads<Attendee>((rows, c) => c.loaders.ticketType.preload(…))`.
 * A connection runs those of the fields selected on its nodes together with its page
 * (`preloadSelector`), so that each row's field answers without a promise of its own. `columns` are
 * those the field's own selection reads (as `columnSelector` finds them from the field itself), for a
 * relation loaded per column list.
 */
export type Preload<Row> = (rows: readonly Row[], context: GraphQLContext, columns: Columns) => Promise<void>;

export function preloads<Row>(preload: Preload<Row>) {
  return { extensions: { preload } };
}

/**
 * A reader of the preloads that the fields selected at `path` below a resolver's field declare,
 * worked out once per compiled document like `columnSelector`; `run` starts them for a page's rows.
 */
export function preloadSelector<Row>(path: readonly string[]) {
  const known = new WeakMap<readonly FieldNode[], BoundPreload<Row>[]>();
  return (info: GraphQLResolveInfo) => {
    let found = known.get(info.fieldNodes);
    if (!found) {
      found = selectedPreloads<Row>(info, path);
      known.set(info.fieldNodes, found);
    }
    const preloads = found;
    // A preload that fails leaves its fields to load row by row, which report the failure where
    // it belongs: on each field, as before.
    return (rows: readonly Row[], context: GraphQLContext) =>
      Promise.all(preloads.map((preload) => preload(rows, context).catch(() => undefined)));
  };
}

function selectedPreloads<Row>(info: GraphQLResolveInfo, path: readonly string[]): BoundPreload<Row>[] {
  const below = descend(info, path);
  if (!below || !isObjectType(below.type)) return [];
  const fields = below.type.getFields();
  // Fields that load one relation share one preload, which runs once (with the first one's columns:
  // a preload that reads them is its field's own).
  const preloads = new Map<Preload<Row>, BoundPreload<Row>>();
  for (const node of fieldsOf(info, below.sets)) {
    const name = node.name.value;
    const preload = fields[name]?.extensions.preload as Preload<Row> | undefined;
    if (typeof preload !== "function" || preloads.has(preload)) continue;
    // Every node of the field (aliases too) merged, as the field's own selection of one alias is.
    const columns = selectedColumns(info, [...path, name]);
    preloads.set(preload, (rows, context) => preload(rows, context, projected(columns, context)));
  }
  return [...preloads.values()];
}

type BoundPreload<Row> = (rows: readonly Row[], context: GraphQLContext) => Promise<void>;
