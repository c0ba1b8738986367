import { defaultFieldResolver, type GraphQLFieldConfig, type GraphQLSchema, isObjectType } from "graphql";
import { notFound } from "../errors.js";
import { assertPermission } from "../modules/access/access.service.js";
import type { Permission } from "../modules/apps/permissions.js";
import type { GraphQLContext } from "./context.js";

/**
 * The one declaration of what a field needs: `...requires("attendees:read")` in a field's options (or
 * in an object type's options, for all its fields). `enforcePermissions` turns it into a check at run
 * time, the field reference prints it, and dry runs report it — never a second list.
 */
export function requires(permission: Permission) {
  return { extensions: { permission } };
}

/**
 * The permission declared on a field or, failing that, on its type. A type's declaration spares
 * its `id`: an id reveals nothing, and a write payload must be able to name what it changed.
 */
export function declaredPermission(
  field: { name: string; extensions?: Readonly<Record<string, unknown>> | null },
  type: { extensions?: Readonly<Record<string, unknown>> | null },
): Permission | undefined {
  const own = field.extensions?.permission as Permission | undefined;
  return own ?? (field.name === "id" ? undefined : (type.extensions?.permission as Permission | undefined));
}

// Every non-root object that carries a permission belongs to one project: a Project itself, or a
// row with `projectId`. The guard checks the caller's grant in that project.
function projectIdOf(parent: { id?: string; projectId?: string }, typename: string): string | undefined {
  return typename === "Project" ? parent.id : parent.projectId;
}

/**
 * Wraps the resolver of every permission-declaring field of a non-root type with the check.
 * Root mutations declare their permission too (for the reference and dry runs); the service they
 * call checks it against the project named in the input, which is only known after parsing it.
 */
export function enforcePermissions(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType()].filter(Boolean).map((t) => t?.name),
  );
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || roots.has(type.name) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const permission = declaredPermission(field, type);
      if (!permission) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const typename = type.name;
      const guarded: GraphQLFieldConfig<{ id?: string; projectId?: string }, GraphQLContext>["resolve"] = (
        parent,
        args,
        context,
        info,
      ) => {
        const projectId = projectIdOf(parent, typename);
        if (!projectId) throw notFound("Project");
        const access = context.resolvedAccess(projectId);
        if (access) {
          assertPermission(access, permission);
          return resolve(parent, args, context, info);
        }
        return context.access(projectId).then((resolved) => {
          if (!resolved) throw notFound("Project");
          assertPermission(resolved, permission);
          return resolve(parent, args, context, info);
        });
      };
      field.resolve = guarded;
    }
  }
  return schema;
}
