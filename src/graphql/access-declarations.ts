import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isObjectType,
} from "graphql";
import type { Permission } from "../modules/access/permissions.js";
import { edgeNodeField } from "./connections.js";
import { declaredPermission, declaredRestriction } from "./permissions.js";

/**
 * Protected by default: every field of a project-scoped type says what it needs, or the schema
 * does not build. A field declares one of
 * - `...requires("attendees:read")` (src/graphql/permissions.ts), on the field or on its type (then
 *   for every field but `id`);
 * - `public: true`: it needs nothing beyond its object, i.e. seeing the project (anyone, for a
 *   published project) or holding the object the field that returned it gave;
 * - on its type, `inheritsAccess: true`: a value inside another object (a venue, a price, an audit
 *   entry's actor) whose fields are exactly as visible as the field that returned it. Such a type
 *   cannot be a `Node`, since `node(id:)` would reach it without that field.
 *
 * A project-scoped type is one whose objects belong to a project: `Project`, and every object type
 * a field of a project-scoped type returns, through lists, connections, interfaces and unions.
 * Relay's plumbing (a connection, its edges, `PageInfo`) is passed through, not scoped: it holds
 * no data of its own, and its items are checked as what they are. Derived from the schema, so a
 * new type hung below `Project` is covered the day it is added.
 * @internal Exported for its tests (knip --production checks that nothing else uses it).
 */
export function projectScopedTypes(schema: GraphQLSchema): Set<GraphQLObjectType> {
  const scoped = new Set<GraphQLObjectType>();
  const seen = new Set<string>();
  const visit = (type: GraphQLNamedType | null | undefined) => {
    if (!type || seen.has(type.name)) return;
    seen.add(type.name);
    if (isAbstractType(type)) {
      for (const possible of schema.getPossibleTypes(type)) visit(possible);
      return;
    }
    if (!isObjectType(type)) return;
    if (!isRelayPlumbing(type)) scoped.add(type);
    for (const field of Object.values(type.getFields())) visit(getNamedType(field.type));
  };
  visit(schema.getType("Project"));
  return scoped;
}

// A connection (`edges` and `pageInfo`), an edge (`cursor` and `node`) or PageInfo itself.
function isRelayPlumbing(type: GraphQLObjectType): boolean {
  const fields = type.getFields();
  return Boolean((fields.edges && fields.pageInfo) || edgeNodeField(type) || type.name === "PageInfo");
}

/** What a field needs, as declared: a permission, nothing, or what the field that returned it needed. */
export type FieldAccess =
  | { kind: "requires"; permission: Permission }
  | { kind: "public" }
  | { kind: "inherited" };

type Described = { extensions?: Readonly<Record<string, unknown>> | null };

// Pothos keeps every option a field or type was defined with; `public` and `inheritsAccess` are
// declared as options in builder.ts, so they cannot clash with another helper's `extensions`.
function option(element: Described, name: string): unknown {
  return (element.extensions?.pothosOptions as Record<string, unknown> | undefined)?.[name];
}

/** The access a field declares, undefined when it declares none. */
export function fieldAccess(
  field: GraphQLField<unknown, unknown>,
  type: GraphQLObjectType,
): FieldAccess | undefined {
  const permission = declaredPermission(field, type);
  if (permission) return { kind: "requires", permission };
  if (option(field, "public") === true) return { kind: "public" };
  // A type's permission spares `id` (see declaredPermission): an id reveals nothing.
  if (type.extensions?.permission !== undefined) return { kind: "public" };
  if (option(type, "inheritsAccess") === true) return { kind: "inherited" };
  return undefined;
}

/**
 * Throws, naming every `Type.field` at fault, unless each field of a project-scoped type declares
 * its access, and no type that inherits its access can be fetched on its own by `node(id:)`.
 */
export function assertAccessDeclared(schema: GraphQLSchema): GraphQLSchema {
  const problems: string[] = [];
  for (const type of projectScopedTypes(schema)) {
    if (option(type, "inheritsAccess") === true && type.getInterfaces().some((i) => i.name === "Node")) {
      problems.push(`${type.name} is a Node, so node(id:) reaches it: it cannot inherit its access`);
    }
    for (const field of Object.values(type.getFields())) {
      if (!fieldAccess(field, type)) problems.push(`${type.name}.${field.name}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `Every field of a project-scoped type declares its access (requires(...) or public: true; see src/graphql/access-declarations.ts): ${problems.join(", ")}`,
    );
  }
  return schema;
}

/**
 * The sentence the SDL and the reference end a field's description with.
 * @internal Exported for its tests (knip --production checks that nothing else uses it).
 */
export function accessSentence(
  field: GraphQLField<unknown, unknown>,
  type: GraphQLObjectType,
): string | undefined {
  const access = fieldAccess(field, type);
  const restrictions = field.args.flatMap((arg) => {
    const restriction = declaredRestriction(arg);
    if (!restriction) return [];
    const allowed = restriction.allowedWithout.map((value) => `\`${String(value)}\``).join(", ");
    return [`\`${arg.name}\` other than ${allowed} requires \`${restriction.permission}\`.`];
  });
  const own =
    access?.kind === "requires"
      ? `Requires: \`${access.permission}\`.`
      : access?.kind === "public"
        ? "Public."
        : access?.kind === "inherited"
          ? "Requires what the field that returned this object requires."
          : undefined;
  return own ? [own, ...restrictions].join(" ") : undefined;
}

/**
 * Ends the description of every field that declares its access with what it needs ("Requires:
 * `attendees:read`." or "Public."), as Saleor's schema does, so the committed schema.graphql and
 * every client's editor show the rule beside the field. A description change is not breaking.
 */
export function describeAccess(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const sentence = accessSentence(field, type);
      if (sentence) field.description = field.description ? `${field.description}\n${sentence}` : sentence;
    }
  }
  return schema;
}
