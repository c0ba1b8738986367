import { type Compilable, type Expression, type SqlBool, SqliteAdapter, sql } from "kysely";
import { type Db, reusableQuery } from "./database.js";

/**
 * The columns of a row a caller reads (the API: what the GraphQL selection asks for), or undefined
 * for every column. Reading only those was about half the cost of a page of rows: SQLite copies
 * every column of every row into a new JavaScript string (36-character ids, timestamps, long texts).
 * Rows read this way lack the other columns; only the caller that asked may see them.
 */
export type Columns = readonly string[] | undefined;

/** A list of ids as one statement parameter (idList makes it; inIdList compares with it). */
export type IdList = string | string[];

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/**
 * The ids as one parameter: JSON text for SQLite's json_each, an array for PostgreSQL's `any`. With
 * `in (?, ?, …)` every number of ids was another statement to build, compile and prepare.
 */
export function idList(db: Db, ids: readonly string[]): IdList {
  return isSqlite(db) ? JSON.stringify(ids) : [...ids];
}

/** `column` is one of the ids of `list` (a parameter made by idList). */
export function inIdList(db: Db, column: string, list: IdList): Expression<SqlBool> {
  return isSqlite(db)
    ? sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${list}))`
    : sql<SqlBool>`${sql.ref(column)} = any(${list})`;
}

/**
 * Every column of a table, checked by the compiler to be complete: `everyColumn<SessionRow>()([…])`.
 * The column lists of `projectedQuery` and `columnsToRead` start from it.
 */
export function everyColumn<Row>() {
  return <const C extends readonly (keyof Row & string)[]>(
    columns: C &
      ([Exclude<keyof Row, C[number]>] extends [never]
        ? unknown
        : { missing: Exclude<keyof Row, C[number]> }),
  ): C => columns;
}

/** The columns of `all` that `wanted` names (every one when undefined), and always those of `always`. */
export function columnsToRead<Column extends string>(
  all: readonly Column[],
  always: readonly Column[],
  wanted: Columns,
): readonly Column[] {
  return wanted === undefined ? all : all.filter((c) => always.includes(c) || wanted.includes(c));
}

// Distinct column lists kept per statement. Each is prepared once per connection (and named on
// PostgreSQL, see reusableQuery), so an endless variety of selections must not become an endless
// number of prepared statements: beyond this many, a selection reads every column.
const maxShapesPerStatement = 32;

/**
 * A fixed-shape statement (see reusableQuery) that reads the columns asked for, compiled once per
 * distinct column list. `build` receives the columns to select, in `all`'s order (so the same set
 * asked in another order is the same statement), always including `always`.
 */
export function projectedQuery<Column extends string, Row, Parameters extends readonly unknown[]>(
  all: readonly Column[],
  always: readonly Column[],
  build: (db: Db, columns: readonly Column[], ...placeholders: Parameters) => Compilable<Row>,
  placeholders: Parameters,
): (db: Db, columns: Columns, ...parameters: Parameters) => Promise<Row[]> {
  const shapes = new Map<string, (db: Db, ...parameters: Parameters) => Promise<Row[]>>();
  const shape = (columns: readonly Column[]) => {
    const key = columns.join(",");
    let query = shapes.get(key);
    if (!query) {
      query = reusableQuery((db, ...p: Parameters) => build(db, columns, ...p), placeholders);
      shapes.set(key, query);
    }
    return query;
  };
  const everything = shape(all);
  // The API asks with the same array for every request of one document (graphql/selection.ts).
  const chosen = new WeakMap<readonly string[], (db: Db, ...parameters: Parameters) => Promise<Row[]>>();
  return (db, wanted, ...parameters) => {
    if (wanted === undefined) return everything(db, ...parameters);
    let query = chosen.get(wanted);
    if (!query) {
      const columns = columnsToRead(all, always, wanted);
      query =
        shapes.size < maxShapesPerStatement || shapes.has(columns.join(",")) ? shape(columns) : everything;
      chosen.set(wanted, query);
    }
    return query(db, ...parameters);
  };
}

// A value of a shaped statement, by name: what `build` receives instead of the run's values.
class Slot {
  constructor(readonly name: string) {}
}

// Distinct structures kept per shaped statement; beyond them a statement is built for its run.
const maxSpecsPerStatement = 64;

/**
 * A statement whose structure follows `spec` (which filters, which direction, which columns) and
 * whose values change with every run, built and compiled once per distinct spec (prepared once,
 * named on PostgreSQL): building and compiling a page query cost about as much as running it.
 * `build` receives the values as named slots and must take its structure from `spec` alone; every
 * parameter of what it builds must be a slot (checked), so no run's value is frozen into a shape.
 */
export function shapedQuery<Spec, Row>(
  build: (db: Db, spec: Spec, values: Record<string, unknown>) => Compilable<Row>,
): (db: Db, spec: Spec, values: Record<string, unknown>) => Promise<Row[]> {
  const slots: Record<string, unknown> = new Proxy({}, { get: (_, name) => new Slot(String(name)) });
  const shapes = new Map<
    string,
    { names: string[]; run: (db: Db, ...values: unknown[]) => Promise<Row[]> }
  >();
  return async (db, spec, values) => {
    // The engine is part of the shape: a builder may differ by engine, and so its parameters' order.
    const key = `${isSqlite(db)}${JSON.stringify(spec)}`;
    let shape = shapes.get(key);
    if (!shape) {
      if (shapes.size >= maxSpecsPerStatement) {
        return (await db.executeQuery(build(db, spec, values).compile())).rows;
      }
      const names = build(db, spec, slots)
        .compile()
        .parameters.map((parameter) => {
          if (parameter instanceof Slot) return parameter.name;
          throw new Error(`shapedQuery: a parameter is not a named value (${String(parameter)})`);
        });
      const run = reusableQuery<Row, unknown[]>(
        (handle) => build(handle, spec, slots),
        names.map(() => null),
      );
      shape = { names, run };
      shapes.set(key, shape);
    }
    return shape.run(db, ...shape.names.map((name) => values[name]));
  };
}
