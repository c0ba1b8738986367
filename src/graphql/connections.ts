import { type GraphQLField, type GraphQLNamedType, type GraphQLSchema, isObjectType } from "graphql";
import { notFound } from "../errors.js";
import type { ProjectAccess } from "../modules/access/access.service.js";
import { type Page, type PageArgs, type PageWindow, resolvePageArgs } from "../shared/pagination.js";

/** The shape Pothos' connection fields resolve to, with a lazily counted total. */
export interface ConnectionResult<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  totalCount: () => Promise<number>;
}

// An edge whose cursor is encoded only when the query selects it.
class Edge<T> {
  constructor(
    private readonly page: Page<T>,
    private readonly index: number,
    readonly node: T,
  ) {}

  get cursor(): string {
    return this.page.cursorAt(this.index);
  }
}

/**
 * Resolves a connection field from a service's paged list: validates first/last/after/before, loads one
 * page and what its rows' selected fields preload (graphql/selection.ts), and counts the whole
 * connection only when `totalCount` is asked for.
 */
export async function toConnection<T>(
  args: PageArgs,
  list: (window: PageWindow) => Promise<Page<T>>,
  count: () => Promise<number>,
  preload?: (items: readonly T[]) => Promise<unknown>,
): Promise<ConnectionResult<T>> {
  const page = await list(resolvePageArgs(args));
  if (preload && page.items.length > 0) await preload(page.items);
  let total: Promise<number> | undefined;
  return {
    edges: page.items.map((node, i) => new Edge(page, i, node)),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.startCursor,
      endCursor: page.endCursor,
    },
    totalCount: () => {
      total ??= count();
      return total;
    },
  };
}

/** What `toConnection` pages through: a service's list, its count and, optionally, a preload. */
interface ConnectionSource<T> {
  list: (window: PageWindow) => Promise<Page<T>>;
  count: () => Promise<number>;
  preload?: (items: readonly T[]) => Promise<unknown>;
}

/**
 * Resolves a connection of one project's rows: the caller's access to the project first (a project
 * deleted or out of reach answers NOT_FOUND, as a missing one does), then `toConnection` over the
 * rows that access lists.
 */
export async function projectConnection<T>(
  context: { access(projectId: string): Promise<ProjectAccess | undefined> },
  projectId: string,
  args: PageArgs,
  source: (access: ProjectAccess) => ConnectionSource<T>,
): Promise<ConnectionResult<T>> {
  const access = await context.access(projectId);
  if (!access) throw notFound("Project");
  const { list, count, preload } = source(access);
  return toConnection(args, list, count, preload);
}

/** Names a connection's types `<Type>Connection` and `<Type>Edge`, with descriptions. */
export function connectionTypes(type: string, plural: string) {
  return [
    { name: `${type}Connection`, description: `A page of ${plural}, with the total count.` },
    { name: `${type}Edge`, description: `One of the ${plural} in a page, with its cursor.` },
  ] as const;
}

/**
 * An edge type of a connection: Pothos relay's `…Edge`, whose fields are `cursor` and `node`.
 * Undefined for any other type.
 */
export function edgeNodeField(type: GraphQLNamedType): GraphQLField<unknown, unknown> | undefined {
  if (!isObjectType(type)) return undefined;
  const fields = type.getFields();
  const names = Object.keys(fields);
  return names.length === 2 && fields.cursor && fields.node ? fields.node : undefined;
}

/**
 * Lets every edge's `node` be read inline. The relay plugin resolves it with `(edge) => edge.node`,
 * and graphql-jit pays a resolver call (a response path, arguments, resolve info, closures) for any
 * resolver, once per edge of every page; without one it reads the property in the code it compiles.
 * Every edge is an `Edge` (above), whose `node` is that property.
 */
export function inlineEdgeNodes(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    const node = edgeNodeField(type);
    if (node) node.resolve = undefined;
  }
  return schema;
}
