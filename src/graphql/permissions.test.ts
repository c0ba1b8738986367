import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type ExecutionResult,
  execute,
  GraphQLID,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { Permission } from "../modules/access/permissions.js";
import { inlineEdgeNodes } from "./connections.js";
import type { GraphQLContext } from "./context.js";
import { enforcePermissions } from "./permissions.js";

// A schema of the shapes the API's gated type appears in (a connection, a payload-like field, an
// interface), built by hand so each path is exercised whether or not the API uses it today.
function gatedSchema(): GraphQLSchema {
  const node = new GraphQLInterfaceType({
    name: "Node",
    fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolveType: (value: { kind: string }) => value.kind,
  });
  const secret = new GraphQLObjectType({
    name: "Secret",
    interfaces: [node],
    extensions: { permission: "attendees:read" },
    fields: {
      id: { type: new GraphQLNonNull(GraphQLID) },
      name: { type: GraphQLString },
      shout: { type: GraphQLString, resolve: (s: { name: string }) => s.name.toUpperCase() },
    },
  });
  const open = new GraphQLObjectType({
    name: "Open",
    interfaces: [node],
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: GraphQLString } },
  });
  const edge = new GraphQLObjectType({
    name: "SecretEdge",
    fields: {
      cursor: { type: new GraphQLNonNull(GraphQLString) },
      node: { type: new GraphQLNonNull(secret), resolve: (e: { node: unknown }) => e.node },
    },
  });
  const connection = new GraphQLObjectType({
    name: "SecretConnection",
    fields: { edges: { type: new GraphQLList(new GraphQLNonNull(edge)) } },
  });
  const rows = [
    { kind: "Secret", id: "s1", projectId: "p1", name: "Ada" },
    { kind: "Secret", id: "s2", projectId: "p1", name: "Grace" },
  ];
  return new GraphQLSchema({
    types: [open],
    query: new GraphQLObjectType({
      name: "Query",
      fields: {
        secrets: {
          type: connection,
          resolve: async () => ({ edges: rows.map((row, i) => ({ cursor: String(i), node: row })) }),
        },
        secret: { type: secret, resolve: () => rows[0] },
        node: {
          type: node,
          args: { id: { type: new GraphQLNonNull(GraphQLID) } },
          resolve: (_root, { id }) =>
            id === "o1" ? { kind: "Open", id: "o1", projectId: "p1", name: "Public" } : rows[0],
        },
      },
    }),
  });
}

// The caller's standing in project p1, as the request context resolves it: at once when `known`
// (already resolved in this request), else only through a lookup.
function contextWith(permissions: Permission[], known: boolean): GraphQLContext {
  const access = { projectId: "p1", actor: { kind: "public" }, permissions: new Set(permissions) };
  return {
    resolvedAccess: (projectId: string) => (known && projectId === "p1" ? access : undefined),
    access: async (projectId: string) => (projectId === "p1" ? access : undefined),
  } as unknown as GraphQLContext;
}

const schema = enforcePermissions(inlineEdgeNodes(gatedSchema()));

async function run(engine: string, query: string, context: GraphQLContext): Promise<ExecutionResult> {
  const document = parse(query);
  if (engine === "graphql-js") {
    // graphql-js answers with null-prototype objects; compare plain ones.
    const result = await execute({ schema, document, contextValue: context });
    return { ...result, data: JSON.parse(JSON.stringify(result.data)) };
  }
  const compiled = compileQuery(schema, document, undefined, { disablingCapturingStackErrors: true });
  assert.ok(isCompiledQuery(compiled));
  return compiled.query(undefined, context, {});
}

// [path, code] of each error, sorted.
const refusals = (result: ExecutionResult) =>
  (result.errors ?? [])
    .map((e) => [e.path?.join("."), e.originalError && (e.originalError as { code?: string }).code])
    .sort();

describe("a type's permission, checked once per object", () => {
  test("an edge's node is read inline", () => {
    const edge = schema.getType("SecretEdge") as GraphQLObjectType;
    assert.equal(edge.getFields().node?.resolve, undefined);
  });

  for (const engine of ["graphql-jit", "graphql-js"]) {
    for (const known of [true, false]) {
      const how = `${engine}, access ${known ? "already resolved" : "looked up"}`;

      test(`refuses every field but id of each edge's node without the permission (${how})`, async () => {
        const result = await run(
          engine,
          "{ secrets { edges { cursor node { id name shout } } } }",
          contextWith([], known),
        );
        assert.deepEqual(result.data, {
          secrets: {
            edges: [
              { cursor: "0", node: { id: "s1", name: null, shout: null } },
              { cursor: "1", node: { id: "s2", name: null, shout: null } },
            ],
          },
        });
        assert.deepEqual(refusals(result), [
          ["secrets.edges.0.node.name", "FORBIDDEN"],
          ["secrets.edges.0.node.shout", "FORBIDDEN"],
          ["secrets.edges.1.node.name", "FORBIDDEN"],
          ["secrets.edges.1.node.shout", "FORBIDDEN"],
        ]);
      });

      test(`answers every field with the permission (${how})`, async () => {
        const result = await run(
          engine,
          '{ secrets { edges { node { name shout } } } secret { name } node(id: "s1") { ... on Secret { name } } }',
          contextWith(["attendees:read"], known),
        );
        assert.equal(result.errors, undefined);
        assert.deepEqual(result.data, {
          secrets: {
            edges: [{ node: { name: "Ada", shout: "ADA" } }, { node: { name: "Grace", shout: "GRACE" } }],
          },
          secret: { name: "Ada" },
          node: { name: "Ada" },
        });
      });

      test(`refuses a gated object returned directly or as an interface (${how})`, async () => {
        const result = await run(
          engine,
          '{ secret { id name } node(id: "s1") { id ... on Secret { name shout } } open: node(id: "o1") { ... on Open { name } } }',
          contextWith([], known),
        );
        assert.deepEqual(result.data, {
          secret: { id: "s1", name: null },
          node: { id: "s1", name: null, shout: null },
          open: { name: "Public" },
        });
        assert.deepEqual(refusals(result), [
          ["node.name", "FORBIDDEN"],
          ["node.shout", "FORBIDDEN"],
          ["secret.name", "FORBIDDEN"],
        ]);
      });
    }
  }

  test("answers NOT_FOUND for each field of an object in a project the caller cannot see", async () => {
    const result = await run("graphql-jit", "{ secret { id name } }", {
      resolvedAccess: () => undefined,
      access: async () => undefined,
    } as unknown as GraphQLContext);
    assert.deepEqual(result.data, { secret: { id: "s1", name: null } });
    assert.deepEqual(refusals(result), [["secret.name", "NOT_FOUND"]]);
  });
});
