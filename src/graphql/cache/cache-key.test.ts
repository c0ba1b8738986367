import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Permission } from "../../modules/access/permissions.js";
import { callerView, responseCacheKey } from "./cache-key.js";

const publicView = callerView("2026-09-01", { kind: "public" });
const appView = (appId: string, permissions: Permission[], version = "2026-09-01") =>
  callerView(version, { kind: "app", appId, permissions });

const query = `query Q($id: ID!) { project(id: $id) { name } }`;

describe("response cache key", () => {
  test("keys by API version, view, document, operation name and variables, ignoring variable key order", () => {
    const base = {
      view: publicView,
      query,
      operationName: "Q",
      variables: { id: "AAAA", n: { a: 1, b: 2 } },
    };
    const key = responseCacheKey(base);
    assert.equal(responseCacheKey({ ...base, variables: { n: { b: 2, a: 1 }, id: "AAAA" } }), key);
    for (const other of [
      { ...base, view: appView("app1", ["agenda:read"]) },
      { ...base, view: callerView("2026-12-01", { kind: "public" }) },
      { ...base, query: `${query} ` },
      { ...base, operationName: null },
      { ...base, variables: { id: "AAAB", n: { a: 1, b: 2 } } },
    ]) {
      assert.notEqual(responseCacheKey(other), key);
    }
    assert.equal(
      appView("app1", ["tickets:read", "agenda:read"]),
      appView("app1", ["agenda:read", "tickets:read"]),
    );
    assert.notEqual(appView("app1", ["agenda:read"]), appView("app1", ["agenda:read", "tickets:read"]));
    assert.notEqual(appView("app1", ["agenda:read"]), appView("app1", ["agenda:read"], "2026-12-01"));
  });
});
