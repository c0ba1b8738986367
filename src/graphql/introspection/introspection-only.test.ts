import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "graphql";
import { isIntrospectionOnly } from "./introspection-only.js";

const only = (source: string, operationName?: string) => isIntrospectionOnly(parse(source), operationName);

describe("which operations ask for introspection alone", () => {
  test("a data field anywhere at the root makes it a query like any other", () => {
    assert.equal(only(`{ __schema { queryType { name } } project(id: "abcd") { name } }`), false);
    assert.equal(
      only(`{ __schema { types { name } } ...Data } fragment Data on Query { viewer { name } }`),
      false,
    );
    assert.equal(
      only(`{ __type(name: "Project") { name } ... on Query { rateLimit { remaining } } }`),
      false,
    );
    // Skipped or not, a data field may be read: the document is charged as a query.
    assert.equal(
      only(`query ($no: Boolean!) { __schema { types { name } } viewer @include(if: $no) { name } }`),
      false,
    );
  });

  test("mutations and bare __typename are not introspection", () => {
    assert.equal(only(`mutation { __typename }`), false);
    assert.equal(only(`{ __typename }`), false);
    assert.equal(only(`query A { viewer { name } } query B { __schema { types { name } } }`, "A"), false);
  });

  test("__schema and __type, with __typename, through fragments, are", () => {
    assert.equal(only(`{ __schema { queryType { name } } }`), true);
    assert.equal(only(`{ __typename t: __type(name: "Session") { fields { name } } }`), true);
    assert.equal(
      only(
        `query Q { ...A ... on Query { ...A } } fragment A on Query { ...B } fragment B on Query { __schema { types { name } } }`,
      ),
      true,
    );
    assert.equal(only(`query A { viewer { name } } query B { __schema { types { name } } }`, "B"), true);
  });

  test("an operation that does not exist is not introspection", () => {
    assert.equal(only(`{ __schema { types { name } } }`, "Missing"), false);
  });
});
