import { completeValue } from "@pothos/core";
import {
  defaultFieldResolver,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isObjectType,
} from "graphql";
import { notFound } from "../errors.js";
import type { Permission } from "../modules/access/permissions.js";
import { assertPermission } from "../modules/access/policy.js";
import { edgeNodeField } from "./connections.js";
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

/**
 * The deprecation of an argument that widens a non-null list beyond what the public sees. Refused,
 * such an argument nulls the list and so, the list being non-null, the whole project: the widened
 * list moved to a nullable field of its own (`allSessions`, …), whose refusal stays on that field.
 * Once the argument is gone, the non-null lists can no longer be refused at all.
 */
export const widenedBy = (replacement: string) =>
  `Refusing it (without the permission) nulls the whole project; use ${replacement}, whose refusal nulls only that field. Removal after 2027-06-01.`;

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

type Parent = { id?: string; projectId?: string };
type Resolver = GraphQLFieldResolver<unknown, GraphQLContext>;

// Every non-root object that carries a permission belongs to one project: a Project itself, or a
// row with `projectId`. The guard checks the caller's grant in that project.
function projectIdOf(parent: Parent, typename: string): string | undefined {
  return typename === "Project" ? parent.id : parent.projectId;
}

/**
 * The column of a row of `type` that a guard reads (`projectIdOf`) when `field` is selected, or
 * undefined when no guard runs (or it reads a Project's key, which every read of a row has): the
 * type's own permission (checked where each object enters the answer), the field's, or an
 * argument's restriction. A selection that reads only the columns its fields declare (selection.ts)
 * reads this one too, so that no guard finds a row without its project and answers "not found".
 */
export function guardColumn(
  type: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
): string | undefined {
  if (type.name === "Project") return undefined;
  const guarded =
    type.extensions.permission !== undefined ||
    field.extensions.permission !== undefined ||
    field.args.some((arg) => declaredRestriction(arg) !== undefined);
  return guarded ? "project_id" : undefined;
}

// Throws (or rejects) unless the caller holds `needed` in the project; at once when its access is
// already known, which is the hot path.
function checkPermission(
  context: GraphQLContext,
  projectId: string | undefined,
  needed: Permission,
): Promise<void> | undefined {
  if (!projectId) throw notFound("Project");
  const access = context.resolvedAccess(projectId);
  if (access) {
    assertPermission(access, needed);
    return;
  }
  return context.access(projectId).then((resolved) => {
    if (!resolved) throw notFound("Project");
    assertPermission(resolved, needed);
  });
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

// A field's own permission (or restricted arguments): checked at every call of its resolver.
function guarded(
  resolve: Resolver,
  typename: string,
  permission: Permission | undefined,
  restricted: { name: string; restriction: ArgumentRestriction }[],
): Resolver {
  return (parent, args, context, info) => {
    const needed = neededPermission(permission, restricted, args);
    if (!needed) return resolve(parent, args, context, info);
    const checked = checkPermission(context, projectIdOf(parent as Parent, typename), needed);
    return checked
      ? checked.then(() => resolve(parent, args, context, info))
      : resolve(parent, args, context, info);
  };
}

/**
 * What a type's permission (declared in its options) needs at run time. Its fields but `id` are
 * covered, yet not checked one by one: graphql-jit reads a plain field (one without a resolver)
 * inline, and a check would make each a resolver call, a large share of an attendee page's
 * allocation. The check runs once per object instead, where the
 * object enters the answer: every field that returns the type (a payload, `node`) or an edge of it
 * (a connection's `edges`) passes what it returns through `admit`. A refused object goes on as a
 * view whose plain fields hold the refusal, which graphql-jit (like graphql-js) reports as that
 * field's error, and whose resolver fields throw it: the same answer as a check per field, `id` and
 * all.
 */
interface TypeGate {
  typename: string;
  permission: Permission;
  plainFields: string[];
}

// Where a refused view keeps its refusal, for the type's fields that have a resolver.
const refusalKey = Symbol("refusal");

function refusedView(object: object, gate: TypeGate, refusal: unknown): object {
  const fields = gate.plainFields.map((name) => [name, { value: refusal }] as const);
  return Object.create(object, Object.fromEntries([...fields, [refusalKey, { value: refusal }]]));
}

function admit(object: Parent, gate: TypeGate, context: GraphQLContext): unknown {
  let checked: ReturnType<typeof checkPermission>;
  try {
    checked = checkPermission(context, projectIdOf(object, gate.typename), gate.permission);
  } catch (refusal) {
    return refusedView(object, gate, refusal);
  }
  return checked
    ? checked.then(
        () => object,
        (refusal) => refusedView(object, gate, refusal),
      )
    : object;
}

// A resolver field of a gated type: throws the refusal its object was admitted with, if any.
function heedingRefusal(resolve: Resolver): Resolver {
  return (parent, args, context, info) => {
    const refusal = (parent as { [refusalKey]?: unknown })[refusalKey];
    if (refusal) throw refusal;
    return resolve(parent, args, context, info);
  };
}

// How to admit what a field of this type returns: a gated object, an object of an interface or
// union that may be one, or an edge of either (admitted by its `node`, which is then read inline:
// src/graphql/connections.ts). Undefined for types that never carry a gated object.
type Admitter = (value: object, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

function admitterOf(
  schema: GraphQLSchema,
  gates: Map<string, TypeGate>,
  type: GraphQLNamedType,
): Admitter | undefined {
  const gate = gates.get(type.name);
  if (gate) return (value, context) => admit(value as Parent, gate, context);
  if (isAbstractType(type)) {
    if (!schema.getPossibleTypes(type).some((t) => gates.has(t.name))) return undefined;
    const resolveType = type.resolveType;
    if (!resolveType) throw new Error(`${type.name} needs a resolveType for its gated types to be admitted`);
    return (value, context, info) =>
      completeValue(resolveType(value, context, info, type), (typename) => {
        const found = typename ? gates.get(typename) : undefined;
        return found ? admit(value as Parent, found, context) : value;
      });
  }
  const node = edgeNodeField(type);
  const admitNode = node && !node.resolve ? admitterOf(schema, gates, getNamedType(node.type)) : undefined;
  if (!admitNode) return undefined;
  return (edge, context, info) => {
    const item = (edge as { node?: object | null }).node;
    if (!item) return edge;
    const admitted = admitNode(item, context, info);
    // The common case, an admitted node, allocates nothing.
    if (admitted === item) return edge;
    return completeValue(admitted, (view) => Object.create(edge, { node: { value: view } }));
  };
}

// Wraps a resolver so that each object it returns, in lists and promises too, is admitted.
function admitting(resolve: Resolver, admitter: Admitter): Resolver {
  return (parent, args, context, info) => {
    const each = (value: unknown): unknown => {
      if (value === null || value === undefined) return value;
      if (Array.isArray(value)) return value.map((item) => completeValue(item, each));
      return admitter(value as object, context, info);
    };
    return completeValue(resolve(parent, args, context, info), each);
  };
}

/**
 * Puts every declared permission into effect: a field's own (or its restricted arguments') around
 * its resolver, a type's at the fields that return the type (`TypeGate`). Root mutations declare
 * their permission too (for the reference and dry runs); the service they call checks it against
 * the project named in the input, which is only known after parsing it.
 */
export function enforcePermissions(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType()].filter(Boolean).map((t) => t?.name),
  );
  const objectTypes = Object.values(schema.getTypeMap()).filter(
    (type) => isObjectType(type) && !type.name.startsWith("__"),
  ) as GraphQLObjectType<unknown, GraphQLContext>[];
  const gates = new Map<string, TypeGate>();
  for (const type of objectTypes) {
    if (roots.has(type.name)) continue;
    const typePermission = type.extensions?.permission as Permission | undefined;
    const gate: TypeGate | undefined = typePermission
      ? { typename: type.name, permission: typePermission, plainFields: [] }
      : undefined;
    for (const field of Object.values(type.getFields())) {
      const own = field.extensions?.permission as Permission | undefined;
      const restricted = field.args.flatMap((arg: GraphQLArgument) => {
        const restriction = declaredRestriction(arg);
        return restriction ? [{ name: arg.name, restriction }] : [];
      });
      if (own || restricted.length > 0) {
        field.resolve = guarded(field.resolve ?? defaultFieldResolver, type.name, own, restricted);
      } else if (gate && declaredPermission(field, type)) {
        if (field.resolve) field.resolve = heedingRefusal(field.resolve);
        else gate.plainFields.push(field.name);
      }
    }
    if (gate) gates.set(type.name, gate);
  }
  for (const type of objectTypes) {
    // An edge's plain node was admitted with its edge, by the field that returned the edge.
    const edgeNode = edgeNodeField(type);
    for (const field of Object.values(type.getFields())) {
      if (field === edgeNode && !field.resolve) continue;
      const admitter = admitterOf(schema, gates, getNamedType(field.type));
      if (admitter) field.resolve = admitting(field.resolve ?? defaultFieldResolver, admitter);
    }
  }
  return schema;
}
