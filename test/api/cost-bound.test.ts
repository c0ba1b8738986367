import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { schema as apiSchema } from "../../src/api-schema.js";
import { latestVersion, versionHeader } from "../../src/graphql/versions/api-versions.js";
import { allPermissions } from "../../src/modules/access/permissions.js";
import { answerSize } from "../helpers/answer-size.js";
import { startDemoServer } from "../helpers/demo-server.js";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import type { TestServer } from "../helpers/test-server.js";

// The property the cost model promises (analyze-operation.ts): no answer holds more fields and
// objects than the cost the server computed for it. Random valid queries over the demo conference
// are sent to the real server and their answers counted.

interface Known {
  projectId: string;
  /** Global ids of objects of several types, for node(id:) and nodes(ids:). */
  ids: string[];
}

/** Writes a random valid query from `random` (numbers in [0, 1)), the schema and known ids. */
function randomQuery(schema: GraphQLSchema, known: Known, random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number) => random() < p;

  // Values for the arguments a query may pass; a required argument without one excludes the field.
  const argument = (field: GraphQLField<unknown, unknown>, name: string): string | undefined => {
    switch (name) {
      case "id":
        return field.name === "project" ? `"${known.projectId}"` : `"${pick(known.ids)}"`;
      case "ids":
        return `[${Array.from({ length: 1 + Math.floor(random() * 30) }, () => `"${pick(known.ids)}"`).join(", ")}]`;
      case "name":
        return `"${pick(["Session", "Speaker", "Project", "Attendee", "Query", "Permission"])}"`;
      case "first":
      case "last":
        return chance(0.7) ? String(pick([0, 1, 3, 20, 50, 100])) : undefined;
      case "search":
        return chance(0.4) ? `"${pick(["ann", "example", "mar", "zzq", "son"])}"` : undefined;
      case "includeUnpublished":
      case "onSaleOnly":
      case "includeDeprecated":
        return chance(0.5) ? String(chance(0.5)) : undefined;
      default:
        return undefined;
    }
  };

  const selection = (type: GraphQLNamedType, depth: number): string => {
    if (isAbstractType(type)) {
      const concrete = pick(schema.getPossibleTypes(type));
      return `__typename ... on ${concrete.name} { ${selection(concrete, depth)} }`;
    }
    if (!isObjectType(type)) return "";
    const parts: string[] = [];
    const fields = Object.values(type.getFields()).filter((f) => !f.name.startsWith("__"));
    for (const field of fields) {
      if (!chance(parts.length === 0 ? 0.6 : 0.35)) continue;
      const args: string[] = [];
      let usable = true;
      let paged = false;
      for (const arg of field.args) {
        // first and last together are refused; one of them is enough.
        if (arg.name === "last" && paged) continue;
        const value = argument(field, arg.name);
        if (value !== undefined) {
          args.push(`${arg.name}: ${value}`);
          if (arg.name === "first") paged = true;
        } else if (isNonNullType(arg.type)) usable = false;
      }
      if (!usable) continue;
      const named = getNamedType(field.type);
      const composite = isCompositeType(named);
      if (composite && depth >= 7) continue;
      const inner = composite ? selection(named, depth + 1) : "";
      if (composite && !inner) continue;
      // Unique within this selection (its position): two different fields under one alias are a
      // validation error, not a cost question; random numbers collided once the schema grew.
      const alias = chance(0.15) ? `a${parts.length}: ` : "";
      const call = `${alias}${field.name}${args.length ? `(${args.join(", ")})` : ""}`;
      parts.push(composite ? `${call} { ${inner} }` : call);
      // The same field again under an alias: aliases must each be paid for.
      if (chance(0.1))
        parts.push(
          `again${parts.length}: ${composite ? `${call.replace(alias, "")} { ${inner} }` : call.replace(alias, "")}`,
        );
    }
    if (parts.length === 0) {
      const scalar = fields.find((f) => !isCompositeType(getNamedType(f.type)) && f.args.length === 0);
      if (scalar) parts.push(scalar.name);
      else if (!isEnumType(type)) parts.push("__typename");
    }
    return parts.join(" ");
  };

  const root = schema.getQueryType();
  assert.ok(root);
  let body = selection(root, 1);
  if (chance(0.2)) {
    const meta = schema.getType("__Schema");
    assert.ok(meta);
    // Three levels at most: graphql-js refuses deeper fields › type › fields chains as invalid.
    body += ` __schema { ${selection(meta, 5)} }`;
  }
  return `{ ${body} }`;
}

for (const engine of testEngines()) {
  describe(`cost is an upper bound on the answer (${engine.name})`, () => {
    let server: TestServer;
    let token: string;
    let known: Known;
    before(async () => {
      let projectId: string;
      ({ server, projectId, token } = await startDemoServer(engine, {
        scale: 1,
        seed: 7,
        app: { name: "Property", permissions: allPermissions },
      }));
      const ids = await gql(
        server.url,
        `query ($id: ID!) { project(id: $id) { sessions(first: 20) { edges { node { id } } }
          speakers(first: 20) { edges { node { id } } } attendees(first: 20) { edges { node { id } } } } }`,
        { token, variables: { id: projectId } },
      );
      const project = ids.body.data.project;
      known = {
        projectId,
        ids: [
          projectId,
          ...["sessions", "speakers", "attendees"].flatMap((c) =>
            project[c].edges.map((e: { node: { id: string } }) => e.node.id),
          ),
        ],
      };
    });
    after(() => server.close());

    test("random valid queries never return more than their computed cost", async () => {
      let executed = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer(), fc.boolean(), async (seed, withToken) => {
          const random = mulberry32(seed);
          const query = randomQuery(apiSchema(), known, random);
          // The query is written from the newest version's schema, so it is sent in that version
          // (a request without a token would otherwise be answered in the oldest).
          const headers = { [versionHeader]: latestVersion.name };
          const response = await gql(server.url, query, withToken ? { token, headers } : { headers });
          if (response.body.errors?.[0]?.extensions?.code === "QUERY_TOO_COMPLEX") return;
          assert.equal(response.status, 200, `${query}\n${JSON.stringify(response.body.errors)}`);
          const cost = response.body.extensions?.cost?.requestedQueryCost;
          assert.ok(typeof cost === "number", `${query}\n${JSON.stringify(response.body).slice(0, 500)}`);
          const size = answerSize(response.body.data);
          assert.ok(size <= cost, `answer of ${size} fields for a cost of ${cost}: ${query}`);
          executed += 1;
        }),
        { numRuns: 80 },
      );
      // Most generated queries must run, or the property says nothing.
      assert.ok(executed >= 40, `only ${executed} of 80 queries ran`);
    });
  });
}

// A small seeded PRNG: each fast-check integer stands for one reproducible query.
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
