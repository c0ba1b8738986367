import assert from "node:assert/strict";
import { test } from "node:test";
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from "graphql";
import { schema } from "../api-schema.js";

// The reference page and every client's editor show these descriptions: an element without one is
// an element an app developer has to guess about.
test("every type, field, argument and enum value of the API has a description", () => {
  const missing: string[] = [];
  const need = (coordinate: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(coordinate);
  };
  for (const type of Object.values(schema().getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name}:)`, arg.description);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        need(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
  }
  assert.deepEqual(missing, [], `${missing.length} schema elements lack a description`);
});
