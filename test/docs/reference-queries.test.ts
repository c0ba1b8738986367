import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isEnumType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from "graphql";
import { schema } from "../../src/api-schema.js";
import { declaredPermission, declaredRestriction } from "../../src/graphql/permissions.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { allPermissions, type Permission } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import {
  type ReferenceIds,
  referenceFixture,
  referenceServerPerSuite,
  without,
} from "../helpers/field-reference.js";
import { gql } from "../helpers/graphql.js";

/** How to reach one field from the root: the nested selections and the response keys. */
interface Probe {
  coordinate: string;
  /** Permissions declared on the fields leading to it (not the field's own). */
  pathPermissions: Permission[];
  permission: Permission | undefined;
  calls: string[];
  keys: string[];
  /** The field's own call and selection, e.g. `quantity` or `venue { __typename }`. */
  call: string;
  leafSelection: string;
}

function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  return isObjectType(named) || isInterfaceType(named) || isUnionType(named) ? " { __typename }" : "";
}

function callOf(field: GraphQLField<unknown, unknown>, ids: ReferenceIds, extraArg?: string): string {
  const args: string[] = [];
  if (field.args.some((a) => a.name === "first")) args.push("first: 1");
  if (field.name === "project" && field.args.some((a) => a.name === "id")) args.push(`id: "${ids.project}"`);
  if (extraArg) args.push(extraArg);
  return args.length > 0 ? `${field.name}(${args.join(", ")})` : field.name;
}

// Fields needing arguments the walk cannot invent, other than Query.project's id.
function reachable(field: GraphQLField<unknown, unknown>, typename: string): boolean {
  if (typename === "Query" && field.name === "project") return true;
  return field.args.every((a) => !isNonNullType(a.type) || a.defaultValue !== undefined);
}

/** Breadth-first from Query: the shortest way to every field of every object type reachable. */
function probes(ids: ReferenceIds): Probe[] {
  const api = schema();
  const query = api.getQueryType() as GraphQLObjectType;
  const found: Probe[] = [];
  const visited = new Set<string>([query.name]);
  const queue: { type: GraphQLObjectType; calls: string[]; keys: string[]; permissions: Permission[] }[] = [
    { type: query, calls: [], keys: [], permissions: [] },
  ];
  while (queue.length > 0) {
    const current = queue.shift();
    if (!current) break;
    for (const field of Object.values(current.type.getFields())) {
      if (!reachable(field, current.type.name)) continue;
      const permission = declaredPermission(field, current.type);
      const call = callOf(field, ids);
      found.push({
        coordinate: `${current.type.name}.${field.name}`,
        pathPermissions: current.permissions,
        permission,
        calls: current.calls,
        keys: current.keys,
        call,
        leafSelection: selectionOf(field),
      });
      const named = getNamedType(field.type);
      if (isObjectType(named) && !visited.has(named.name)) {
        visited.add(named.name);
        queue.push({
          type: named,
          calls: [...current.calls, call],
          keys: [...current.keys, field.name],
          permissions: permission ? [...current.permissions, permission] : current.permissions,
        });
      }
    }
  }
  return found;
}

function document(calls: string[], leaf: string): string {
  return `{ ${calls.map((c) => `${c} { `).join("")}${leaf}${" }".repeat(calls.length)} }`;
}

// The value at `keys`, taking the first element of every list on the way.
function walk(data: unknown, keys: string[]): { present: boolean; value: unknown } {
  let value: unknown = data;
  for (const key of keys) {
    while (Array.isArray(value)) value = value[0];
    if (value === null || typeof value !== "object" || !(key in value)) return { present: false, value };
    value = (value as Record<string, unknown>)[key];
  }
  return { present: true, value };
}

// biome-ignore lint/suspicious/noExplicitAny: GraphQL error objects from the response body
type ResponseError = any;

for (const engine of testEngines()) {
  describe(`the field reference against the API's queries (${engine.name})`, () => {
    const server = referenceServerPerSuite(engine);

    test("matches what the API enforces for every field reachable from Query", async () => {
      const ids = await referenceFixture(server);
      const appWith = new Map<string, string>();
      const tokenFor = async (permissions: Permission[]) => {
        const key = [...new Set(permissions)].sort().join(",");
        let token = appWith.get(key);
        if (!token) {
          let app: { id: string };
          ({ token, app } = await createApp(server.services, {
            projectId: ids.project,
            permissions: [...new Set(permissions)],
          }));
          // Viewer.webhook and Viewer.webhookDeliveries answer only once the app has an endpoint and a delivery.
          await server.services.webhooks.configure(systemActor, {
            appId: app.id,
            url: "https://hooks.example.com/in",
            events: ["project.updated"],
          });
          await server.services.webhooks.sendPing(systemActor, app.id);
          appWith.set(key, token);
        }
        return token;
      };
      const failures: string[] = [];
      const all = probes(ids);
      const documented = new Set(all.filter((p) => p.permission).map((p) => p.coordinate));
      for (const probe of all) {
        const query = document([...probe.calls], `${probe.call}${probe.leafSelection}`);
        const keys = [...probe.keys, probe.call.replace(/\(.*$/, "")];
        const needed = probe.permission
          ? [...probe.pathPermissions, probe.permission]
          : probe.pathPermissions;
        // With exactly the permissions the reference names on the way, the field answers.
        const granted = await gql(server.url, query, { token: await tokenFor(needed) });
        if (granted.body.errors?.length || !walk(granted.body.data, keys).present) {
          failures.push(
            `${probe.coordinate} with ${needed.join(",") || "no permission"}: ${JSON.stringify(granted.body)}`,
          );
        }
        if (!probe.permission) continue;
        // Without the field's own permission it is refused with FORBIDDEN naming that permission.
        const refused = await gql(server.url, query, {
          token: await tokenFor(without(probe.permission, needed)),
        });
        const forbidden = (refused.body.errors ?? []).find(
          (e: ResponseError) =>
            e.extensions?.code === "FORBIDDEN" && e.extensions?.requiredPermission === probe.permission,
        );
        const leaked = walk(refused.body.data, keys);
        if (!forbidden || (leaked.present && leaked.value !== null)) {
          failures.push(`${probe.coordinate} without ${probe.permission}: ${JSON.stringify(refused.body)}`);
        }
      }
      assert.deepEqual(failures, []);
      // The walk must have exercised the gated fields it claims to cover.
      for (const coordinate of [
        "Project.attendees",
        "Attendee.email",
        "Attendee.checkIn",
        "TicketType.sold",
      ]) {
        assert.ok(documented.has(coordinate), `${coordinate} was reached`);
      }
    });

    test("matches what the API enforces for every restricted argument", async () => {
      const ids = await referenceFixture(server);
      const restricted = probes(ids).flatMap((probe) => {
        const [typename = "", fieldName = ""] = probe.coordinate.split(".");
        const type = schema().getType(typename);
        if (!isObjectType(type)) return [];
        const field = type.getFields()[fieldName];
        return (field?.args ?? []).flatMap((arg) => {
          const restriction = declaredRestriction(arg);
          if (!restriction || !field) return [];
          const named = getNamedType(arg.type);
          // Every value the restriction does not allow: a list argument asks for all of them.
          const literal = isEnumType(named)
            ? `[${named
                .getValues()
                .filter((v) => !restriction.allowedWithout.includes(v.name))
                .map((v) => v.name)
                .join(", ")}]`
            : `${!restriction.allowedWithout[0]}`;
          return [{ probe, field, arg: arg.name, literal, permission: restriction.permission }];
        });
      });
      assert.equal(
        restricted.length,
        3,
        "sessions(status:), speakers(includeUnpublished:), ticketTypes(onSaleOnly:)",
      );
      for (const { probe, field, arg, literal, permission } of restricted) {
        const call = callOf(field, ids, `${arg}: ${literal}`);
        const query = document(probe.calls, `${call} { totalCount }`);
        const others = without(permission, [...allPermissions]);
        const { token: lacking } = await createApp(server.services, {
          projectId: ids.project,
          permissions: others,
        });
        const { token: holding } = await createApp(server.services, {
          projectId: ids.project,
          permissions: [permission],
        });
        const refused = await gql(server.url, query, { token: lacking });
        assert.equal(refused.body.errors?.[0]?.extensions?.code, "FORBIDDEN", `${probe.coordinate}(${arg})`);
        assert.equal(refused.body.errors?.[0]?.extensions?.requiredPermission, permission);
        const granted = await gql(server.url, query, { token: holding });
        assert.equal(
          granted.body.errors,
          undefined,
          `${probe.coordinate}(${arg}: ${literal}) with ${permission}`,
        );
        const total = walk(granted.body.data, [...probe.keys, field.name, "totalCount"]).value;
        assert.ok((total as number) >= 1, `${query}: ${JSON.stringify(granted.body)}`);
      }
    });
  });
}
