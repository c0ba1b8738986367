import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from "graphql";
import { schema } from "../../src/api-schema.js";
import { declaredPermission, declaredRestriction } from "../../src/graphql/permissions.js";
import { testEngines } from "../helpers/engines.js";
import { referencePerSuite } from "../helpers/field-reference.js";

for (const engine of testEngines()) {
  describe(`the field reference page (${engine.name})`, () => {
    const { server, page } = referencePerSuite(engine);

    test("lists every type, field, argument and enum value with an anchor", async () => {
      const html = await (await fetch(`${server.url}/graphql/reference/`)).text();
      const missing: string[] = [];
      for (const type of Object.values(schema().getTypeMap()) as GraphQLNamedType[]) {
        if (type.name.startsWith("__") || ["String", "Int", "Boolean", "ID", "Float"].includes(type.name))
          continue;
        const anchors = [type.name];
        if (isObjectType(type) || isInterfaceType(type)) {
          for (const field of Object.values(type.getFields())) {
            anchors.push(`${type.name}.${field.name}`);
            for (const arg of field.args) anchors.push(`${type.name}.${field.name}.${arg.name}`);
          }
        } else if (isInputObjectType(type)) {
          for (const field of Object.values(type.getFields())) anchors.push(`${type.name}.${field.name}`);
        } else if (isEnumType(type)) {
          for (const value of type.getValues()) anchors.push(`${type.name}.${value.name}`);
        }
        for (const anchor of anchors) if (!html.includes(`id="${anchor}"`)) missing.push(anchor);
      }
      assert.deepEqual(missing, []);
      assert.match(html, /Statuses to include \(default \[PUBLISHED\]\)/, "descriptions are shown");
      assert.match(
        html,
        /includeUnpublished<\/code>: <code>Boolean<\/code> = <code>false<\/code>/,
        "defaults",
      );
    });

    test("states for every field the permission declared on it, or public", () => {
      const api = schema();
      const wrong: string[] = [];
      for (const type of Object.values(api.getTypeMap())) {
        if (type.name.startsWith("__") || !(isObjectType(type) || isInterfaceType(type))) continue;
        for (const field of Object.values(type.getFields())) {
          const coordinate = `${type.name}.${field.name}`;
          const expected = declaredPermission(field, type) ?? "public";
          if (page.get(coordinate) !== expected)
            wrong.push(`${coordinate}: ${page.get(coordinate)} ≠ ${expected}`);
          for (const arg of field.args) {
            const restriction = declaredRestriction(arg);
            if (restriction && page.get(`${coordinate}.${arg.name}`) !== restriction.permission) {
              wrong.push(`${coordinate}.${arg.name}`);
            }
          }
        }
      }
      assert.deepEqual(wrong, []);
      assert.equal(page.get("Project.attendees"), "attendees:read");
      assert.equal(page.get("Attendee.email"), "attendees:read");
      assert.equal(page.get("Attendee.id"), "public");
      assert.equal(page.get("Project.name"), "public");
      assert.equal(page.get("Project.sessions.status"), "agenda:read");
    });
  });
}
