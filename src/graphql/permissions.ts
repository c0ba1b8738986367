import {
  defaultFieldResolver,
  type GraphQLArgument,
  type GraphQLFieldConfig,
  type GraphQLSchema,
  isObjectType,
} from "graphql";
import { notFound } from "../errors.js";
import type { Permission } from "../modules/access/permissions.js";
import { assertPermission } from "../modules/access/policy.js";
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
 * Declares an argument that widens what a public field returns: any value outside `allowed` (for a
 * list, any element outside it) needs `permission`, e.g. `sessions(status: [DRAFT])` needs agenda:read.
 * `enforcePermissions` checks it, the field reference prints it: one declaration for both.
 */
export function restricts(permission: Permission, allowed: readonly (string | boolean)[]) {
  return { extensions: { permission, allowedWithout: allowed } };
}

/** What an argument declared with `restricts`: the permission and the values allowed without it. */
export interface ArgumentRestriction {
  permission: Permission;
  allowedWithout: readonly (string | boolean)[];
}

/** The restriction declared on an argument, if any. */
export function declaredRestriction(arg: {
  extensions?: Readonly<Record<string, unknown>> | null;
}): ArgumentRestriction | undefined {
  const permission = arg.extensions?.permission as Permission | undefined;
  const allowedWithout = arg.extensions?.allowedWithout as ArgumentRestriction["allowedWithout"] | undefined;
  return permission && allowedWithout ? { permission, allowedWithout } : undefined;
}

/** Whether an argument's value needs the restriction's permission (null and omitted never do). */
function exceedsRestriction(restriction: ArgumentRestriction, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => !restriction.allowedWithout.includes(v as string | boolean));
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

// The permission a call needs: the field's own, then the first argument value beyond its restriction.
function neededPermission(
  permission: Permission | undefined,
  restricted: { name: string; restriction: ArgumentRestriction }[],
  args: Record<string, unknown>,
): Permission | undefined {
  if (permission) return permission;
  return restricted.find((r) => exceedsRestriction(r.restriction, args[r.name]))?.restriction.permission;
}

/**
 * Wraps the resolver of every permission-declaring field (or argument) of a non-root type with the
 * check. Root mutations declare their permission too (for the reference and dry runs); the service
 * they call checks it against the project named in the input, which is only known after parsing it.
 */
export function enforcePermissions(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType()].filter(Boolean).map((t) => t?.name),
  );
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || roots.has(type.name) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const permission = declaredPermission(field, type);
      const restricted = field.args.flatMap((arg: GraphQLArgument) => {
        const restriction = declaredRestriction(arg);
        return restriction ? [{ name: arg.name, restriction }] : [];
      });
      if (!permission && restricted.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const typename = type.name;
      const guarded: GraphQLFieldConfig<{ id?: string; projectId?: string }, GraphQLContext>["resolve"] = (
        parent,
        args,
        context,
        info,
      ) => {
        const needed = neededPermission(permission, restricted, args);
        if (!needed) return resolve(parent, args, context, info);
        const projectId = projectIdOf(parent, typename);
        if (!projectId) throw notFound("Project");
        const access = context.resolvedAccess(projectId);
        if (access) {
          assertPermission(access, needed);
          return resolve(parent, args, context, info);
        }
        return context.access(projectId).then((resolved) => {
          if (!resolved) throw notFound("Project");
          assertPermission(resolved, needed);
          return resolve(parent, args, context, info);
        });
      };
      field.resolve = guarded;
    }
  }
  return schema;
}
