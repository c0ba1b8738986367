import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SchemaBuilder from "@pothos/core";
import { type GraphQLObjectType, isNonNullType, isObjectType, printSchema } from "graphql";
import { schema } from "../api-schema.js";
import { unannouncedBreakingChanges } from "../docs/schema-history.js";
import {
  accessSentence,
  assertAccessDeclared,
  describeAccess,
  projectScopedTypes,
} from "./access-declarations.js";
import { declaredPermission, declaredRestriction, requires } from "./permissions.js";

type Row = { id: string; projectId: string };

// A small API of the shapes the rule meets: Project, a type below it, a value inside that, a type
// outside any project. `undeclared` names fields to leave without a declaration.
function miniature(
  options: { undeclared?: "Project.secret" | "Ticket.code"; inheritingNode?: boolean } = {},
) {
  const builder = new SchemaBuilder<{ DefaultFieldNullability: true }>({});
  const Node = builder.interfaceRef<Row>("Node").implement({ fields: (t) => ({ id: t.exposeID("id") }) });
  const Price = builder.objectRef<{ amount: number }>("Price").implement({
    inheritsAccess: true,
    fields: (t) => ({ amount: t.exposeInt("amount") }),
  });
  const Ticket = builder.objectRef<Row & { code: string }>("Ticket").implement({
    ...(options.inheritingNode ? { inheritsAccess: true as const, interfaces: [Node] } : {}),
    isTypeOf: () => true,
    fields: (t) => ({
      id: t.exposeID("id", { public: true }),
      code:
        options.undeclared === "Ticket.code"
          ? t.exposeString("code")
          : t.exposeString("code", requires("tickets:read")),
      price: t.field({ type: Price, public: true, resolve: () => ({ amount: 1 }) }),
    }),
  });
  const Project = builder.objectRef<Row>("Project").implement({
    fields: (t) => ({
      name: t.string({ public: true, resolve: () => "Conf" }),
      secret:
        options.undeclared === "Project.secret"
          ? t.string({ resolve: () => "x" })
          : t.string({ ...requires("attendees:read"), resolve: () => "x" }),
      tickets: t.field({ type: [Ticket], public: true, resolve: () => [] }),
    }),
  });
  const Outside = builder
    .objectRef<{ n: number }>("Outside")
    .implement({ fields: (t) => ({ n: t.exposeInt("n") }) });
  builder.queryType({
    fields: (t) => ({
      project: t.field({ type: Project, resolve: () => ({ id: "p", projectId: "p" }) }),
      outside: t.field({ type: Outside, resolve: () => ({ n: 1 }) }),
    }),
  });
  return builder.toSchema();
}

describe("protected by default", () => {
  test("a project-scoped field without a declaration fails the build, named", () => {
    assert.throws(
      () => assertAccessDeclared(miniature({ undeclared: "Project.secret" })),
      /: Project\.secret$/,
    );
    assert.throws(() => assertAccessDeclared(miniature({ undeclared: "Ticket.code" })), /: Ticket\.code$/);
    assert.doesNotThrow(() => assertAccessDeclared(miniature()));
  });

  test("scope is derived from Project: what its fields reach, not the types outside", () => {
    const names = [...projectScopedTypes(miniature())].map((t) => t.name).sort();
    assert.deepEqual(names, ["Price", "Project", "Ticket"]);
  });

  test("a Node cannot inherit its access: node(id:) reaches it without its parent", () => {
    assert.throws(() => assertAccessDeclared(miniature({ inheritingNode: true })), /Ticket is a Node/);
  });

  test("the real schema builds, and every project-scoped field states its rule", () => {
    const api = schema();
    const silent: string[] = [];
    for (const type of projectScopedTypes(api)) {
      for (const field of Object.values(type.getFields())) {
        if (!accessSentence(field, type) || !field.description?.endsWith(accessSentence(field, type) ?? "")) {
          silent.push(`${type.name}.${field.name}`);
        }
      }
    }
    assert.deepEqual(silent, []);
    const fields = (type: string) => (api.getType(type) as import("graphql").GraphQLObjectType).getFields();
    assert.match(fields("Attendee").email?.description ?? "", /\nRequires: `attendees:read`\.$/);
    assert.match(fields("Project").name?.description ?? "", /\nPublic\.$/);
    assert.match(
      fields("Project").sessions?.description ?? "",
      /Public\. `status` other than `PUBLISHED` requires `agenda:read`\.$/,
    );
    assert.match(fields("Mutation").createSession?.description ?? "", /\nRequires: `agenda:write`\.$/);
  });

  test("the sentences change descriptions only, which the schema check does not count as breaking", async () => {
    const before = printSchema(miniature());
    const after = printSchema(describeAccess(miniature()));
    assert.notEqual(before, after);
    assert.match(after, /Requires: `tickets:read`\./);
    assert.deepEqual(await unannouncedBreakingChanges(before, after), []);
  });

  // A refusal nulls the field it is raised on and, through every non-null field above it, the
  // nearest nullable one: a refusable non-null field takes its parent (the whole project) with it.
  test("every field a permission can refuse is nullable, but for arguments deprecated for that reason", () => {
    const api = schema();
    const spreading: string[] = [];
    for (const type of Object.values(api.getTypeMap())) {
      // Mutations are refused by their service, before any write, for the project named in the input.
      if (!isObjectType(type) || type.name.startsWith("__") || type === api.getMutationType()) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isNonNullType(field.type)) continue;
        const refusedByArgument = field.args.some(
          (arg) => declaredRestriction(arg) && !arg.deprecationReason,
        );
        if (declaredPermission(field, type) || refusedByArgument)
          spreading.push(`${type.name}.${field.name}`);
      }
    }
    assert.deepEqual(spreading, []);
    const project = api.getType("Project") as GraphQLObjectType;
    for (const name of ["allSessions", "allSpeakers", "allTicketTypes"]) {
      assert.equal(isNonNullType(project.getFields()[name]?.type), false, name);
    }
  });
});
