import type { ProjectAccess } from "../modules/access/access.service.js";
import type { GraphQLContext } from "./context.js";

/**
 * Adapts a service's access-checked lookup (`find…(actor, id) → {item, access}`) to a Relay node
 * loader. The access it resolved is kept, so the object's guarded fields need no second lookup.
 */
export function nodeLoader<T>(
  find: (context: GraphQLContext, id: string) => Promise<{ item: T; access: ProjectAccess } | undefined>,
) {
  return async (id: string, context: GraphQLContext): Promise<T | null> => {
    const found = await find(context, id);
    if (!found) return null;
    context.rememberAccess(found.access);
    return found.item;
  };
}

/**
 * `nodeLoader` for a service's lookup of many ids at once (`find…s(actor, ids)`, answering in the
 * order of the ids): `nodes(ids)` and a claim's webhook payloads then read the rows in one
 * statement instead of one per id.
 */
export function nodesLoader<T>(
  find: (
    context: GraphQLContext,
    ids: readonly string[],
  ) => Promise<({ item: T; access: ProjectAccess } | undefined)[]>,
) {
  return async (ids: string[], context: GraphQLContext): Promise<(T | null)[]> =>
    (await find(context, ids)).map((found) => {
      if (!found) return null;
      context.rememberAccess(found.access);
      return found.item;
    });
}
