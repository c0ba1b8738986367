import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SchemaBuilder from "@pothos/core";
import { execute, getIntrospectionQuery, parse, validate } from "graphql";
import { answerSize } from "../../../test/helpers/answer-size.js";
import { analyzeOperation } from "./analyze-operation.js";
import { checkSchemaExtensions } from "./field-extensions.js";
import { atMost, boundedList } from "./list-bounds.js";
import { writeCost } from "./operation-limits.js";

// Plain lists that point at each other (Session.speakers ↔ Speaker.sessions), a by-ids field and a
// mutation: the shapes whose cost used to be counted once.
function buildSchema() {
  const builder = new SchemaBuilder({});
  const Speaker = builder.objectRef<{ id: string }>("Speaker");
  const Session = builder.objectRef<{ id: string }>("Session");
  Speaker.implement({
    fields: (t) => ({
      name: t.string({ resolve: () => "Ada" }),
      sessions: t.field({ type: [Session], ...boundedList(3), resolve: () => atMost([{ id: "s" }], 3) }),
    }),
  });
  Session.implement({
    fields: (t) => ({
      title: t.string({ resolve: () => "Keynote" }),
      speakers: t.field({ type: [Speaker], ...boundedList(5), resolve: () => [{ id: "p" }] }),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      session: t.field({ type: Session, resolve: () => ({ id: "s" }) }),
      byIds: t.field({
        type: [Session],
        args: { ids: t.arg.idList({ required: true }) },
        extensions: { cost: { multiplierArgs: ["ids"], maxItems: 4 } },
        resolve: (_root, args) => args.ids.map((id) => ({ id: String(id) })),
      }),
    }),
  });
  builder.mutationType({
    fields: (t) => ({ touch: t.field({ type: Session, resolve: () => ({ id: "s" }) }) }),
  });
  return builder.toSchema();
}

const schema = buildSchema();
const cost = (query: string, maxCost = 50_000) => {
  const document = parse(query);
  assert.deepEqual(validate(schema, document), []);
  return analyzeOperation({
    schema,
    document,
    limits: { defaultPageSize: 20, maxPageSize: 100, maxCost },
  }).cost;
};

describe("cost of lists, ids, writes and introspection", () => {
  test("multiplies plain lists that point at each other by their most items, level by level", () => {
    // session 1 + speakers (1 + 5 × (name 1 + sessions (1 + 3 × (speakers (1 + 5 × name 1)))))
    assert.equal(
      cost(`{ session { speakers { name sessions { speakers { name } } } } }`),
      1 + 1 + 5 * (1 + 1 + 3 * (1 + 5 * 1)),
    );
  });

  test("counts each returned object at least once even when only __typename is selected", () => {
    assert.equal(cost(`{ session { speakers { __typename } } }`), 1 + 1 + 5 * 1);
  });

  test("charges per id and refuses more ids than the field serves", () => {
    assert.equal(cost(`{ byIds(ids: ["a", "b", "c"]) { title } }`), 1 + 3 * 1);
    assert.throws(() => cost(`{ byIds(ids: ["a", "b", "c", "d", "e"]) { title } }`), {
      code: "QUERY_TOO_COMPLEX",
      message: "byIds.ids is 5, the limit is 4",
    });
  });

  test("charges each aliased mutation as a write", () => {
    assert.equal(cost(`mutation { a: touch { title } b: touch { title } }`), 2 * (writeCost + 1));
  });

  test("prices introspection at the exact size of its answer, aliases each time", async () => {
    const query = getIntrospectionQuery();
    const answer = await execute({ schema, document: parse(query) });
    const size = answerSize(answer.data);
    assert.ok(size > 100, `the introspection answer has ${size} fields`);
    assert.equal(cost(query), size);
    const twice = `{ a: __schema { types { name fields { name } } } b: __schema { types { name fields { name } } } }`;
    const once = cost(`{ __schema { types { name fields { name } } } }`);
    assert.ok(once > 10);
    assert.equal(cost(twice), 2 * once);
    assert.equal(cost(`{ __type(name: "Session") { fields { name } } }`), 1 + 1 + 2 * 1);
  });

  test("stops measuring introspection once the limit is passed", () => {
    const aliases = Array.from({ length: 99 }, (_, i) => `s${i}: __schema { types { name } }`).join(" ");
    const measured = cost(`{ ${aliases} }`, 100);
    assert.ok(measured > 100 && measured < 200, `cost ${measured}`);
  });

  test("flags a list of objects that declares no bound", () => {
    const builder = new SchemaBuilder({});
    const Item = builder.objectRef<{ id: string }>("Item").implement({
      fields: (t) => ({ id: t.exposeID("id") }),
    });
    builder.queryType({ fields: (t) => ({ items: t.field({ type: [Item], resolve: () => [] }) }) });
    assert.deepEqual(checkSchemaExtensions(builder.toSchema()), [
      "Query.items: a list of objects must declare cost.maxItems (see list-bounds.ts)",
    ]);
    assert.deepEqual(checkSchemaExtensions(schema), []);
  });
});
