import SchemaBuilder, {
  completeValue,
  type FieldNullability,
  type InputFieldMap,
  type SchemaTypes,
  type TypeParam,
} from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";
import {
  GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  isObjectType,
  Kind,
} from "graphql";
import { maxPageSize as maxNodeIds } from "../shared/pagination.js";
import { isCleanId, isIsoDateTime } from "../shared/validation.js";
import type { GraphQLContext } from "./context.js";
import { decodeGlobalID, encodeGlobalID } from "./ids.js";

/**
 * The schema builder: configuration only. Types live beside their module (`*.graphql.ts`) and
 * `schema.ts` assembles them. Fields are non-null unless marked; fields behind a permission are
 * nullable so a FORBIDDEN error nulls only that field, not its parent.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: string; Output: string };
    ID: { Input: string; Output: string };
  };
  Connection: { totalCount: () => Promise<number> };
}>({
  plugins: [RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    edgesFieldOptions: { nullable: false, description: "The items of this page with their cursors." },
    nodeFieldOptions: { nullable: false, description: "The item." },
    cursorFieldOptions: { description: "Opaque position of the item; pass it as after/before." },
    pageInfoFieldOptions: { description: "Whether more pages exist and the cursors to reach them." },
    hasNextPageFieldOptions: { description: "Whether items follow this page." },
    hasPreviousPageFieldOptions: { description: "Whether items precede this page." },
    startCursorFieldOptions: { description: "Cursor of the first item of the page." },
    endCursorFieldOptions: { description: "Cursor of the last item of the page." },
    firstArgOptions: { description: "Return the first n items (0 to 100; default 20)." },
    lastArgOptions: { description: "Return the last n items (0 to 100); not together with first." },
    afterArgOptions: { description: "Start after this cursor." },
    beforeArgOptions: { description: "End before this cursor." },
    encodeGlobalID,
    decodeGlobalID,
    nodeQueryOptions: {
      description:
        "Fetches any object by its global id (a project by its 4-character id); null when the id is malformed, unknown or invisible.",
      resolve: (_root, args, _context, info, resolveNode) =>
        isLoadableId(args.id, info) ? resolveNode(args.id) : null,
      args: { id: { description: "The global id of the object." } },
    },
    nodesQueryOptions: {
      description: `Fetches up to ${maxNodeIds} objects by global id; each malformed, unknown or invisible id comes back null on its own.`,
      // Each id is a lookup: the ids multiply the cost, and more than a page of them is refused.
      extensions: { cost: { multiplierArgs: ["ids"], maxItems: maxNodeIds } },
      resolve: (_root, args, _context, info, resolveNodes) => {
        // Pothos loads `args.ids` itself (the ids passed to the callback are ignored): blanking an
        // id in place makes that item null without failing the others.
        const ids = args.ids as ({ typename: string; id: string } | null)[];
        ids.forEach((id, index) => {
          if (!isLoadableId(id, info)) ids[index] = null;
        });
        return resolveNodes(args.ids);
      },
      args: { ids: { description: "Global ids of the objects." } },
    },
    idFieldOptions: { description: "Global id: node(id:) fetches this object again." },
    nodeTypeOptions: { description: "An object with a global id that `node(id:)` can refetch." },
    pageInfoTypeOptions: { description: "Where a page sits in its connection (Relay cursor connections)." },
  },
});

/**
 * Whether a decoded global id names a type that `node(id:)` can load, with an id of sane text.
 * Anything else (garbage, a non-Node type such as UserError, an unknown type) is answered null
 * before Pothos would throw its own internal messages.
 */
function isLoadableId(decoded: { typename: string; id: string } | null, info: GraphQLResolveInfo): boolean {
  if (!decoded || !isCleanId(decoded.id)) return false;
  const type = info.schema.getType(decoded.typename);
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === "Node");
}

/**
 * Gives every node type's `id` a synchronous resolver. The relay plugin resolves it through an async
 * function, so each node's id was a promise that graphql-jit then followed, a hundred per page of
 * attendees. The id each type gives
 * (`builder.node(…, { id: { resolve } })`, kept by Pothos in the type's options) is encoded the
 * same way, by `encodeGlobalID`.
 */
export function synchronousNodeIds(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !type.getInterfaces().some((i) => i.name === "Node")) continue;
    const options = type.extensions.pothosOptions as {
      id?: { resolve?: GraphQLFieldResolver<unknown, unknown> };
    };
    const rawId = options?.id?.resolve;
    const field = type.getFields().id;
    if (!rawId || !field) throw new Error(`The node type ${type.name} has no id resolver to encode`);
    const typename = type.name;
    // completeValue (Pothos's own, as the relay plugin uses) answers at once for a plain id.
    field.resolve = (parent, args, context, info) =>
      completeValue(rawId(parent, args, context, info), (id) => encodeGlobalID(typename, String(id)));
  }
  return schema;
}

builder.scalarType("DateTime", {
  description:
    "An instant as an ISO-8601 string in UTC, e.g. 2026-05-04T09:00:00.000Z. Inputs may carry any offset.",
  serialize: (value) => String(value),
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("DateTime must be a string");
    return parseDateTime(ast.value);
  },
});

function parseDateTime(value: unknown): string {
  if (typeof value !== "string" || !isIsoDateTime(value)) {
    throw new GraphQLError("DateTime must be an ISO-8601 string such as 2026-05-04T09:00:00Z");
  }
  return value;
}

builder.queryType({ description: "The entry points for reading: `project(id:)`, `viewer`, `node(id:)`." });
builder.mutationType({
  description: "Writes. Each takes one `input` and returns a payload with `userErrors`.",
});

builder.globalConnectionField("totalCount", (t) =>
  t.int({
    description: "The number of items in the whole connection, across all pages. Costs 100.",
    // A count reads every index entry of the connection: priced like 100 rows (docs/security.md).
    extensions: { cost: { value: 100 } },
    resolve: (connection) => connection.totalCount(),
  }),
);

/** The builder's type parameters, for helpers that take Pothos refs or field builders. */
export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The field builder of input types, for input field sets shared by create and update inputs. */
export type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">;

// The access declarations of src/graphql/access-declarations.ts, as options Pothos keeps with the
// field or type (`extensions.pothosOptions`): unlike an `extensions` entry, an option cannot be
// overwritten by another helper spreading its own `extensions`.
declare global {
  export namespace PothosSchemaTypes {
    export interface FieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      ParentShape = unknown,
      Type extends TypeParam<Types> = TypeParam<Types>,
      Nullable extends FieldNullability<Type> = FieldNullability<Type>,
      Args extends InputFieldMap = InputFieldMap,
      ResolveShape = unknown,
      ResolveReturnShape = unknown,
    > {
      /** Needs no permission beyond its object (src/graphql/access-declarations.ts). */
      public?: true;
    }
    export interface ObjectTypeOptions<Types extends SchemaTypes = SchemaTypes, Shape = unknown> {
      /** Its fields are as visible as the field that returned it (src/graphql/access-declarations.ts). */
      inheritsAccess?: true;
    }
  }
}
