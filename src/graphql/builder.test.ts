import assert from "node:assert/strict";
import { test } from "node:test";
import { type GraphQLResolveInfo, isObjectType } from "graphql";
import { schema } from "../api-schema.js";
import { globalId, localId } from "./ids.js";

test("every node type's id resolves at once, without a promise, to the id node(id:) takes", () => {
  const nodeTypes = Object.values(schema().getTypeMap()).filter(
    (type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === "Node"),
  );
  assert.ok(nodeTypes.length >= 7, nodeTypes.map((t) => t.name).join(", "));
  for (const type of nodeTypes) {
    if (!isObjectType(type)) continue;
    const resolve = type.getFields().id?.resolve;
    assert.ok(resolve, `${type.name}.id has a resolver`);
    const row = { id: "Ab12", projectId: "Ab12" };
    const id = resolve(row, {}, {}, {} as GraphQLResolveInfo);
    assert.equal(typeof id, "string", `${type.name}.id answered ${String(id)}`);
    assert.equal(id, globalId(type.name, "Ab12"));
    assert.equal(type.name === "Project" ? id : localId(id as string, type.name), "Ab12");
  }
});

test("global ids stay right past the bound of remembered encodings, and differ by type", () => {
  const ids = Array.from({ length: 40_000 }, (_, i) => `row-${i}`);
  const expected = (typename: string, id: string) => Buffer.from(`${typename}:${id}`).toString("base64url");
  for (const id of ids) assert.equal(globalId("Attendee", id), expected("Attendee", id));
  // Again, once the first ones were forgotten, and under another type with the same row ids.
  for (const id of ids.slice(0, 100)) {
    assert.equal(globalId("Attendee", id), expected("Attendee", id));
    assert.equal(globalId("Session", id), expected("Session", id));
    assert.equal(localId(globalId("Session", id), "Session"), id);
  }
});
