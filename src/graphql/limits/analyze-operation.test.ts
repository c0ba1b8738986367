import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SchemaBuilder from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";
import { getIntrospectionQuery, parse, validate } from "graphql";
import { AppError } from "../../errors.js";
import { analyzeOperation, missingPermissions, permissionsLacking } from "./analyze-operation.js";
import { checkSchemaExtensions } from "./field-extensions.js";
import { assertWithinLimits, type OperationLimits, operationLimitsFrom } from "./operation-limits.js";
import { parseDocument } from "./parse-document.js";

// A small schema shaped like the real one: connections from the relay plugin, permissions and
// costs declared as field extensions, exactly as the API's schema declares them.
function buildTestSchema() {
  const builder = new SchemaBuilder<{ DefaultEdgesNullability: false }>({
    plugins: [RelayPlugin],
    relay: { cursorType: "String", clientMutationId: "omit" },
  });
  interface Row {
    id: string;
  }
  const Speaker = builder.objectRef<Row>("Speaker");
  const Session = builder.objectRef<Row>("Session");
  const Project = builder.objectRef<Row>("Project");
  const noRows = () => ({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } });
  Speaker.implement({
    fields: (t) => ({
      name: t.string({ resolve: () => "Ada" }),
      sessions: t.connection({ type: Session, resolve: noRows }),
    }),
  });
  Session.implement({
    fields: (t) => ({
      title: t.string({ resolve: () => "Keynote" }),
      speakers: t.connection({ type: Speaker, resolve: noRows }),
    }),
  });
  Project.implement({
    fields: (t) => ({
      id: t.exposeID("id"),
      name: t.string({ resolve: () => "Conf" }),
      tags: t.stringList({ resolve: () => [] }),
      sessions: t.connection({
        type: Session,
        extensions: { permission: "agenda:read" },
        resolve: noRows,
      }),
      attendees: t.connection({
        type: Speaker,
        extensions: { permission: "attendees:read" },
        resolve: noRows,
      }),
      report: t.string({ extensions: { cost: { value: 50 } }, resolve: () => "" }),
      sessionsByIds: t.field({
        type: [Session],
        args: { ids: t.arg.idList({ required: true }) },
        extensions: { cost: { multiplierArgs: ["ids"] }, permission: "agenda:read" },
        resolve: () => [],
      }),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      project: t.field({
        type: Project,
        nullable: true,
        args: { id: t.arg.id({ required: true }) },
        resolve: (_root, args) => ({ id: String(args.id) }),
      }),
    }),
  });
  builder.mutationType({
    fields: (t) => ({
      renameProject: t.field({
        type: Project,
        args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true }) },
        extensions: { permission: "project:write" },
        resolve: (_root, args) => ({ id: String(args.id) }),
      }),
    }),
  });
  return builder.toSchema();
}

const schema = buildTestSchema();

function analyze(query: string, variables?: Record<string, unknown>, operationName?: string) {
  const document = parse(query);
  assert.deepEqual(validate(schema, document), [], "the test query must be valid");
  return analyzeOperation({ schema, document, variables, operationName });
}

const limits: OperationLimits = operationLimitsFrom({
  limits: {
    maxQueryDepth: 15,
    maxQueryCost: 50_000,
    appPointsPerHour: 1,
    publicPointsPerHour: 1,
    idempotencyKeysPerHour: 1,
    maxBodyBytes: 1,
    requestTimeoutMs: 10_000,
    streamsPerApp: 1,
    streamsPerIp: 1,
  },
});

function rejectsAsTooComplex(fn: () => unknown, limit: string, value: number, max: number): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, "QUERY_TOO_COMPLEX");
    assert.equal(error.message, `${limit} is ${value}, the limit is ${max}`);
    // The cost limit also names its members as the errors guide documents them (cost, maxCost).
    const documented = limit === "cost" ? { cost: value, maxCost: max } : {};
    assert.deepEqual(error.details, { limit, value, max, ...documented });
    return true;
  });
}

const nest = (levels: number) =>
  `{ project(id: "a") { sessions(first: 1) { edges { node { ${"speakers(first: 1) { edges { node { sessions(first: 1) { edges { node { ".repeat(levels)}title${" } } } } } }".repeat(levels)} } } } } }`;

describe("operation limits", () => {
  test("rejects a document longer than the token limit with the real token count", () => {
    const source = `{ project(id: "a") { ${"name ".repeat(20)}} }`;
    rejectsAsTooComplex(() => parseDocument(source, 10), "tokens", 30, 10);
    // Exactly at the limit parses.
    assert.equal(parseDocument(source, 30).kind, "Document");
  });

  test("turns a syntax error into GRAPHQL_PARSE_FAILED with its location, not a token error", () => {
    assert.throws(() => parseDocument("{ project(id: ) }"), {
      code: "GRAPHQL_PARSE_FAILED",
      message: /Syntax Error: Unexpected "\)"/,
    });
    assert.throws(() => parseDocument(""), { code: "GRAPHQL_PARSE_FAILED" });
  });

  test("rejects a query deeper than the depth limit, naming depth", () => {
    const deep = analyze(nest(2));
    assert.equal(deep.depth, 17);
    rejectsAsTooComplex(() => assertWithinLimits(deep, limits), "depth", 17, 15);
    const shallow = analyze(nest(1));
    assert.equal(shallow.depth, 11);
    assertWithinLimits(shallow, limits);
  });

  test("rejects more aliases than allowed, counting aliases inside spread fragments each time", () => {
    const fields = Array.from({ length: 60 }, (_, i) => `n${i}: name`).join(" ");
    const query = `{ a: project(id: "a") { ...F } b: project(id: "b") { ...F } } fragment F on Project { ${fields} }`;
    const result = analyze(query);
    assert.equal(result.aliases, 122);
    rejectsAsTooComplex(() => assertWithinLimits(result, limits), "aliases", 122, 100);
    assertWithinLimits(result, { ...limits, maxAliases: 122 });
  });

  test("rejects more directives than allowed, skipped fields included", () => {
    const fields = Array.from({ length: 51 }, () => "name @skip(if: true)").join(" ");
    const result = analyze(`{ project(id: "a") { id ${fields} } }`);
    assert.equal(result.directives, 51);
    rejectsAsTooComplex(() => assertWithinLimits(result, limits), "directives", 51, 50);
  });

  test("rejects a cost above the limit and accepts one exactly at it", () => {
    const result = analyze(`{ project(id: "a") { sessions(first: 100) { edges { node { speakers(first: 100) {
      edges { node { sessions(first: 100) { edges { node { title } } } } } } } } } } }`);
    // sessions(1 + 100 × (2 + speakers(1 + 100 × (2 + sessions(1 + 100 × 3))))) + project 1
    assert.equal(result.cost, 1 + 1 + 100 * (2 + 1 + 100 * (2 + 1 + 100 * 3)));
    assert.equal(result.nodeCount, 100 + 100 ** 2 + 100 ** 3);
    rejectsAsTooComplex(() => assertWithinLimits(result, limits), "cost", result.cost, 50_000);
    assertWithinLimits(result, { ...limits, maxCost: result.cost });
  });

  test("names the first limit exceeded when several are", () => {
    const result = { cost: 10, depth: 20, aliases: 500, directives: 500, tokens: 5 };
    rejectsAsTooComplex(() => assertWithinLimits(result, limits), "depth", 20, 15);
    rejectsAsTooComplex(
      () => assertWithinLimits({ ...result, tokens: 20_000 }, limits),
      "tokens",
      20_000,
      10_000,
    );
  });

  test("takes depth and cost from the configuration and the rest from the fixed defaults", () => {
    assert.deepEqual(limits, {
      maxDepth: 15,
      maxCost: 50_000,
      maxTokens: 10_000,
      maxSelections: 500,
      maxAliases: 100,
      maxDirectives: 50,
      maxIntrospection: 15_000,
      defaultPageSize: 20,
      maxPageSize: 100,
    });
  });
});

describe("operation cost", () => {
  test("counts 1 per field", () => {
    const result = analyze(`{ project(id: "a") { id name tags } }`);
    assert.deepEqual([result.cost, result.depth, result.nodeCount], [4, 2, 0]);
  });

  test("multiplies nested connections by their page sizes", () => {
    const result = analyze(`{ project(id: "a") { sessions(first: 10) { edges { node { title
      speakers(last: 5) { edges { node { name } } } } } } } }`);
    // project 1 + sessions (1 + 10 × (edges 1 + node 1 + title 1 + speakers (1 + 5 × 3)))
    assert.equal(result.cost, 1 + 1 + 10 * (3 + 1 + 5 * 3));
    assert.equal(result.nodeCount, 10 + 10 * 5);
    assert.equal(result.depth, 8);
  });

  test("resolves page sizes from variables and their defaults", () => {
    const query = `query Q($n: Int = 7, $m: Int) { project(id: "a") {
      sessions(first: $n) { edges { cursor } } attendees(first: $m) { edges { cursor } } } }`;
    const withDefaults = analyze(query);
    assert.equal(withDefaults.cost, 1 + (1 + 7 * 2) + (1 + 20 * 2));
    assert.equal(withDefaults.nodeCount, 27);
    const given = analyze(query, { n: 3, m: 4 });
    assert.equal(given.cost, 1 + (1 + 3 * 2) + (1 + 4 * 2));
  });

  test("counts a connection without first or last at 20 and caps a page at 100", () => {
    assert.equal(analyze(`{ project(id: "a") { sessions { edges { cursor } } } }`).cost, 1 + 1 + 20 * 2);
    assert.equal(
      analyze(`{ project(id: "a") { sessions(first: 5000) { edges { cursor } } } }`).cost,
      2 + 200,
    );
    // `first: 0` still answers the connection's own fields once.
    assert.equal(analyze(`{ project(id: "a") { sessions(first: 0) { edges { cursor } } } }`).cost, 2 + 2);
  });

  test("expands named and inline fragments where they are spread", () => {
    const inline =
      analyze(`{ project(id: "a") { sessions(first: 10) { edges { node { title speakers(first: 2) {
      edges { node { name } } } } } } } }`);
    const fragments = analyze(`{ project(id: "a") { ... on Project { sessions(first: 10) { ...S } } } }
      fragment S on ProjectSessionsConnection { edges { node { ...T } } }
      fragment T on Session { title speakers(first: 2) { edges { node { ... { name } } } } }`);
    assert.deepEqual(
      [fragments.cost, fragments.depth, fragments.nodeCount],
      [inline.cost, inline.depth, inline.nodeCount],
    );
  });

  test("measures nested fragment spreads without exponential work", () => {
    // 40 levels of a fragment spreading the next one twice: 2^40 fields if expanded naively.
    const levels = 40;
    const defs = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on Project { ...F${i + 1} ...F${i + 1} }`,
    ).join("\n");
    const started = performance.now();
    const result = analyze(`{ project(id: "a") { ...F0 } } ${defs} fragment F${levels} on Project { name }`);
    assert.ok(performance.now() - started < 1000);
    assert.equal(result.cost, 1 + 2 ** levels);
    rejectsAsTooComplex(() => assertWithinLimits(result, limits), "cost", 1 + 2 ** levels, 50_000);
  });

  test("does not loop on a fragment cycle in an unvalidated document", () => {
    const document = parse(
      `{ project(id: "a") { ...A } } fragment A on Project { name ...B } fragment B on Project { id ...A }`,
    );
    const result = analyzeOperation({ schema, document });
    assert.equal(result.cost, 3);
  });

  test("honours @skip and @include with variables", () => {
    const query = `query ($on: Boolean!) { project(id: "a") {
      sessions(first: 50) @include(if: $on) { edges { cursor } } name } }`;
    assert.equal(analyze(query, { on: false }).cost, 2);
    assert.equal(analyze(query, { on: true }).cost, 2 + 1 + 50 * 2);
  });

  test("uses a field's declared cost and multiplier arguments", () => {
    assert.equal(analyze(`{ project(id: "a") { report } }`).cost, 51);
    const byIds = analyze(`{ project(id: "a") { sessionsByIds(ids: ["1", "2", "3"]) { title } } }`);
    assert.equal(byIds.cost, 1 + 1 + 3 * 1);
    assert.equal(byIds.nodeCount, 3);
  });

  test("counts a plain list field's subtree once", () => {
    assert.equal(analyze(`{ project(id: "a") { tags } }`).cost, 2);
  });

  test("keeps introspection within the depth limit; __typename alone is free", () => {
    assertWithinLimits(analyze(getIntrospectionQuery()), limits);
    // The project object still counts: every object returned costs at least 1.
    const typename = analyze(`{ __typename project(id: "a") { __typename } }`);
    assert.equal(typename.cost, 2);
    // __schema › types › fields › type › 12 × ofType › name: 17 levels.
    const deep = analyze(
      `{ __schema { types { fields { type { ${"ofType { ".repeat(12)}name${" }".repeat(16)} }`,
    );
    rejectsAsTooComplex(() => assertWithinLimits(deep, limits), "depth", 17, 15);
  });

  test("reports the document's tokens", () => {
    assert.equal(analyze(`{ project(id: "a") { name } } # a comment`).tokens, 11);
    assert.equal(
      analyzeOperation({ schema, document: parse(`{ __typename }`, { noLocation: true }) }).tokens,
      undefined,
    );
  });

  test("chooses the named operation and rejects an ambiguous or unknown one", () => {
    const query = `query A { project(id: "a") { name } } query B { project(id: "a") { id name tags } }`;
    assert.equal(analyze(query, undefined, "B").cost, 4);
    assert.throws(() => analyze(query), { code: "BAD_USER_INPUT", message: /Must provide operation name/ });
    assert.throws(() => analyze(query, undefined, "C"), {
      code: "BAD_USER_INPUT",
      message: 'Unknown operation named "C".',
    });
  });

  test("rejects variables that do not fit their types with graphql's message", () => {
    assert.throws(
      () =>
        analyze(`query ($n: Int!) { project(id: "a") { sessions(first: $n) { edges { cursor } } } }`, {
          n: "ten",
        }),
      { code: "BAD_USER_INPUT", message: /Variable "\$n" got invalid value "ten"/ },
    );
    assert.throws(
      () => analyze(`query ($n: Int!) { project(id: "a") { sessions(first: $n) { edges { cursor } } } }`, {}),
      { code: "BAD_USER_INPUT", message: /Variable "\$n" of required type "Int!" was not provided/ },
    );
  });
});

describe("field permissions", () => {
  test("lists the permissions a document needs that the grant lacks", () => {
    const document = parse(`query ($withPeople: Boolean!) { project(id: "a") { name
      sessions { edges { node { title } } }
      attendees @include(if: $withPeople) { edges { node { name } } } } }`);
    assert.deepEqual(missingPermissions(schema, document, { withPeople: true }, []), [
      "agenda:read",
      "attendees:read",
    ]);
    assert.deepEqual(missingPermissions(schema, document, { withPeople: true }, ["agenda:read"]), [
      "attendees:read",
    ]);
    assert.deepEqual(missingPermissions(schema, document, { withPeople: false }, ["agenda:read"]), []);
  });

  test("finds permissions inside fragments and on mutations", () => {
    const fragment = parse(
      `{ project(id: "a") { ...P } } fragment P on Project { sessionsByIds(ids: ["1"]) { title } }`,
    );
    assert.deepEqual(missingPermissions(schema, fragment, {}, ["attendees:read"]), ["agenda:read"]);
    const mutation = parse(`mutation { renameProject(id: "a", name: "x") { name } }`);
    assert.deepEqual(missingPermissions(schema, mutation, {}, ["agenda:read"]), ["project:write"]);
    assert.equal(analyzeOperation({ schema, document: mutation }).operationType, "mutation");
  });

  test("reports needed permissions in catalogue order and lacking ones by set difference", () => {
    const result = analyze(
      `{ project(id: "a") { attendees { edges { cursor } } sessions { edges { cursor } } } }`,
    );
    assert.deepEqual(result.permissions, ["agenda:read", "attendees:read"]);
    assert.deepEqual(permissionsLacking(result.permissions, ["attendees:read", "tickets:read"]), [
      "agenda:read",
    ]);
  });

  test("checks the schema's cost and permission declarations", () => {
    assert.deepEqual(checkSchemaExtensions(schema), []);
    const builder = new SchemaBuilder({});
    builder.queryType({
      fields: (t) => ({
        a: t.string({ extensions: { permission: "agenda:raed" }, resolve: () => "" }),
        b: t.string({ extensions: { cost: { value: -1, multiplierArgs: ["first"] } }, resolve: () => "" }),
      }),
    });
    const bad = builder.toSchema();
    assert.deepEqual(checkSchemaExtensions(bad), [
      'Query.a: permission "agenda:raed" is not in the catalogue',
      "Query.b: cost.value must be a number ≥ 0",
      'Query.b: cost names the argument "first", which is not an argument of the field',
    ]);
    assert.throws(() => analyzeOperation({ schema: bad, document: parse("{ a }") }), /unknown permission/);
  });
});
