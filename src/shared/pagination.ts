import { type SelectQueryBuilder, sql } from "kysely";
import { badInput } from "../errors.js";

/** Relay connection arguments as they arrive from GraphQL (or a dashboard list). */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A position in a keyset order: the sort column's value and the row id (the tie-breaker). */
export type CursorKey = readonly [sortValue: string, id: string];

/** Page arguments checked and decoded: what a repository needs to build its query. */
export interface PageWindow {
  /** Rows wanted (1..100); repositories fetch one more to learn whether another page exists. */
  limit: number;
  after: CursorKey | undefined;
  before: CursorKey | undefined;
  /** `last`/`before` paging: the query runs in reverse order and the rows are flipped back. */
  backward: boolean;
}

export interface Page<T> {
  items: T[];
  /** The cursor of `items[index]`, encoded on demand: most pages are read without their edges' cursors. */
  cursorAt(index: number): string;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export const maxPageSize = 100;
export const defaultPageSize = 20;

/**
 * The opaque cursor of a row's sort key (base64url JSON); decodeCursor reads it back.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

function decodeCursor(cursor: string, field: string): CursorKey {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === 2) {
      const [sortValue, id] = key;
      if (typeof sortValue === "string" && typeof id === "string") return [sortValue, id];
    }
  } catch {
    // fall through to the uniform message below
  }
  throw badInput([{ field: [field], message: "is not a cursor returned by this API" }]);
}

/** Validates connection arguments: at most 100 rows, `first` and `last` not together. */
export function resolvePageArgs(args: PageArgs, defaultSize = defaultPageSize): PageWindow {
  const { first, last } = args;
  if (first != null && last != null) {
    throw badInput([{ field: ["last"], message: "cannot be combined with first" }]);
  }
  for (const [name, value] of [
    ["first", first],
    ["last", last],
  ] as const) {
    if (value != null && (!Number.isInteger(value) || value < 0 || value > maxPageSize)) {
      throw badInput([{ field: [name], message: `must be between 0 and ${maxPageSize}` }]);
    }
  }
  return {
    limit: first ?? last ?? defaultSize,
    after: args.after ? decodeCursor(args.after, "after") : undefined,
    before: args.before ? decodeCursor(args.before, "before") : undefined,
    backward: last != null,
  };
}

/**
 * Narrows and orders a query for keyset paging on (sortColumn, idColumn). Row-value comparison
 * `(a, b) > (x, y)` works on SQLite and PostgreSQL and uses the (project_id, sort, id) indices.
 */
// biome-ignore lint/suspicious/noExplicitAny: works for any table's select query; columns are checked by the callers' types
export function applyKeyset<QB extends SelectQueryBuilder<any, any, any>>(
  query: QB,
  window: PageWindow,
  sortColumn: string,
  idColumn: string,
  // Rows to fetch: one more than the page, or a named value of a shaped query (keysetValues).
  fetch: unknown = window.limit + 1,
): QB {
  const sort = sql.ref(sortColumn);
  const id = sql.ref(idColumn);
  let q = query;
  if (window.after)
    q = q.where(sql<boolean>`(${sort}, ${id}) > (${window.after[0]}, ${window.after[1]})`) as QB;
  if (window.before)
    q = q.where(sql<boolean>`(${sort}, ${id}) < (${window.before[0]}, ${window.before[1]})`) as QB;
  const direction = window.backward ? "desc" : "asc";
  return q
    .orderBy(sort, direction)
    .orderBy(id, direction)
    .limit(fetch as number) as QB;
}

/** What of a window shapes a keyset query (db/projection.ts shapedQuery): which bounds, which way. */
export function keysetSpec(window: PageWindow) {
  return {
    after: window.after !== undefined,
    before: window.before !== undefined,
    backward: window.backward,
  };
}

/** The values of a window for a shaped keyset query, by name (see slotWindow). */
export function keysetValues(window: PageWindow) {
  return {
    afterSort: window.after?.[0],
    afterId: window.after?.[1],
    beforeSort: window.before?.[0],
    beforeId: window.before?.[1],
    fetch: window.limit + 1,
  };
}

/** The window a shaped keyset query builds with: its bounds are the named values of keysetValues. */
export function slotWindow(spec: ReturnType<typeof keysetSpec>, values: Record<string, unknown>): PageWindow {
  const key = (sort: string, id: string) => [values[sort], values[id]] as unknown as CursorKey;
  return {
    limit: 0,
    after: spec.after ? key("afterSort", "afterId") : undefined,
    before: spec.before ? key("beforeSort", "beforeId") : undefined,
    backward: spec.backward,
  };
}

/** Turns the fetched rows (up to limit + 1, in query order) into a page in forward order. */
export function toPage<T>(rows: T[], window: PageWindow, keyOf: (row: T) => CursorKey): Page<T> {
  const hasMore = rows.length > window.limit;
  const items = rows.slice(0, window.limit);
  if (window.backward) items.reverse();
  const cursorAt = (index: number) => {
    const item = items[index];
    return item === undefined ? "" : encodeCursor(keyOf(item));
  };
  return {
    items,
    cursorAt,
    // Relay: when paging one way, whether more exist the other way is answered cheaply from the cursor.
    hasNextPage: window.backward ? window.before !== undefined : hasMore,
    hasPreviousPage: window.backward ? hasMore : window.after !== undefined,
    startCursor: items.length > 0 ? cursorAt(0) : null,
    endCursor: items.length > 0 ? cursorAt(items.length - 1) : null,
  };
}
