import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildSchema, type GraphQLObjectType } from "graphql";
import { AppError } from "../errors.js";
import { canonicalJson } from "./cache/cache-key.js";
import { DocumentCache } from "./documents.js";
import { operationLimitDefaults } from "./limits/operation-limits.js";

const schema = buildSchema(`
  type Query { project(id: ID!): Project }
  type Project {
    sessions(first: Int, after: String): SessionConnection!
    people(first: Int, search: String): SessionConnection!
  }
  type SessionConnection { edges: [SessionEdge!]! }
  type SessionEdge { node: Session! }
  type Session { title: String! }
`);
// A search is priced like the real attendee search (attendees.graphql.ts).
Object.assign((schema.getType("Project") as GraphQLObjectType).getFields().people ?? {}, {
  extensions: { cost: { argumentCosts: { search: 100 } } },
});

const documents = new DocumentCache(schema, { ...operationLimitDefaults, maxDepth: 15, maxCost: 50_000 });

function measure(source: string, variables: Record<string, unknown>) {
  const prepared = documents.prepare(source);
  assert.ok(prepared.ok);
  return documents.analyze(prepared.prepared, undefined, variables, canonicalJson(variables));
}

const page = `query ($id: ID!, $first: Int, $after: String, $titles: Boolean = true) {
  project(id: $id) { sessions(first: $first, after: $after) @include(if: $titles) { edges { node { title } } } }
}`;

describe("measuring an operation once per shape of its variables", () => {
  test("still refuses variables that do not fit their types once the shape was measured", () => {
    measure(page, { id: "AbC1", first: 5, after: "one" });
    assert.throws(
      () => measure(page, { id: "AbC1", first: 5, after: 7 }),
      (error) => error instanceof AppError && error.code === "BAD_USER_INPUT",
    );
    assert.throws(
      () => measure(page, { first: 5, after: "two" }),
      (error) => error instanceof AppError && /\$id/.test(error.message),
    );
  });

  test("remembers the shape of the document's own operations only", () => {
    const prepared = documents.prepare(page);
    assert.ok(prepared.ok);
    for (const name of ["Made", "Up"]) {
      assert.throws(
        () => documents.analyze(prepared.prepared, name, { id: "AbC1" }, canonicalJson({ id: "AbC1" })),
        /Unknown operation named/,
      );
    }
    assert.ok(!prepared.prepared.shapes.has("Made") && !prepared.prepared.shapes.has("Up"));
  });

  test("measures again when a page size, a directive's variable or a priced argument changes", () => {
    const small = measure(page, { id: "AbC1", first: 5, after: "one" });
    assert.ok(measure(page, { id: "AbC1", first: 50, after: "one" }).cost > small.cost);
    const titled = measure(page, { id: "AbC1", first: 5, after: "one", titles: true });
    assert.ok(measure(page, { id: "AbC1", first: 5, after: "one", titles: false }).cost < titled.cost);
    const people = `query ($q: String) { project(id: "AbC1") { people(first: 5, search: $q) { edges { node { title } } } } }`;
    assert.equal(measure(people, { q: "ada" }).cost - measure(people, { q: null }).cost, 100);
    assert.equal(measure(people, {}).cost, measure(people, { q: null }).cost);
  });

  test("measures a page once whatever its cursor", () => {
    const first = measure(page, { id: "AbC1", first: 5, after: "three" });
    assert.equal(measure(page, { id: "AbC1", first: 5, after: "four" }), first);
    assert.equal(measure(page, { id: "XyZ9", first: 5, after: "five" }), first);
  });
});

describe("the jit fast path", () => {
  const limits = { ...operationLimitDefaults, maxDepth: 15, maxCost: 50_000 };
  const source = `query ($id: ID!) { project(id: $id) { sessions(first: 2) { edges { node { title } } } } }`;
  const rootValue = { project: { sessions: { edges: [{ node: { title: "Keynote" } }] } } };

  test("off, a document runs on graphql-js, and answers what the compiled one answers", async () => {
    const answers: unknown[] = [];
    for (const jit of [true, false]) {
      const cache = new DocumentCache(schema, limits, { jit });
      const prepared = cache.prepare(source);
      assert.ok(prepared.ok);
      const compiled = cache.compiled(prepared.prepared, undefined);
      assert.ok("query" in compiled);
      // graphql-jit's compiled operations carry their own serializer; graphql-js's wrapper does not.
      assert.equal(typeof (compiled as { stringify?: unknown }).stringify, jit ? "function" : "undefined");
      answers.push(await compiled.query(rootValue, {}, { id: "AbC1" }));
    }
    assert.deepEqual(JSON.parse(JSON.stringify(answers[0])), JSON.parse(JSON.stringify(answers[1])));
  });
});
