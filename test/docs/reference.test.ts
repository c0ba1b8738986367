import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from "graphql";
import { schema } from "../../src/api-schema.js";
import { globalId } from "../../src/graphql/ids.js";
import { declaredPermission, declaredRestriction } from "../../src/graphql/permissions.js";
import { publicActor, systemActor } from "../../src/modules/access/actor.js";
import { allPermissions, type Permission } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createAttendee,
  createPublishedProject,
  createSession,
  createTicketType,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/** What the reference page says about each field and restricted argument: coordinate → permission. */
function documentedPermissions(html: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of html.matchAll(/data-(?:field|argument)="([^"]+)" data-permission="([^"]+)"/g)) {
    found.set(match[1] ?? "", match[2] ?? "");
  }
  return found;
}

/**
 * The waiting list throttles joins per client address (30 an hour), and one process builds many
 * fixtures: each join comes from its own documentation address (IPv6 counts per /64).
 */
let joins = 0;
const nextClientAddress = () => `2001:db8:${(++joins).toString(16)}::1`;

/** A published project with one of everything, checked-in attendee included. */
async function fixture(server: TestServer) {
  const { services } = server;
  const { project } = await createPublishedProject(services);
  const room = await services.agenda.createRoom(systemActor, { projectId: project.id, name: "Hall A" });
  const track = await services.agenda.createTrack(systemActor, { projectId: project.id, name: "Main" });
  const speaker = await services.agenda.createSpeaker(systemActor, {
    projectId: project.id,
    name: "Ada",
    links: [{ label: "Website", url: "https://example.test" }],
  });
  const session = await createSession(services, systemActor, project.id, {
    status: "PUBLISHED",
    roomId: room.id,
    trackId: track.id,
    speakerIds: [speaker.id],
  });
  await createSession(services, systemActor, project.id, { status: "DRAFT", title: "Draft" });
  // Sold out for a moment, so someone joins its waiting list; then raised, so a registration fits.
  const ticket = await createTicketType(services, systemActor, project.id, { quantity: 2 });
  const spareTicket = await createTicketType(services, systemActor, project.id, { name: "Spare" });
  const checkedIn = await createAttendee(services, systemActor, project.id, ticket.id);
  await services.checkins.checkIn(systemActor, { attendeeId: checkedIn.id });
  const waiting = await createAttendee(services, systemActor, project.id, ticket.id);
  await services.waitingList.join(
    { projectId: project.id, ticketTypeId: ticket.id, name: "Wen", email: "wen@example.test" },
    nextClientAddress(),
  );
  await services.tickets.updateTicketType(systemActor, { id: ticket.id, quantity: 100 });
  const door = await createTicketType(services, systemActor, project.id, {
    name: "Door",
    paymentMode: "AT_DOOR",
  });
  const placed = await services.orders.placeOrder(publicActor, {
    projectId: project.id,
    buyerName: "Bea Buyer",
    buyerEmail: "bea@example.test",
    tickets: [{ ticketTypeId: door.id, name: "Bea Buyer", email: `bea-${project.id}@example.test` }],
  });
  // Paid (with seller details, so it is invoiced) and partly refunded, so the Invoice and Refund
  // types' fields are reachable.
  await services.orders.updateSettings(systemActor, project.id, {
    holdMinutes: 15,
    sellerDetails: "Reference GmbH",
  });
  await services.orders.markOrderPaid(systemActor, { id: placed.order.id });
  await services.refunds.refundOrder(systemActor, { id: placed.order.id, amountMinor: 100 });
  const code = await services.discountCodes.createDiscountCode(systemActor, {
    projectId: project.id,
    code: "REFERENCE",
    kind: "PERCENTAGE",
    percentOff: 10,
  });
  const question = await services.questions.createQuestion(systemActor, {
    projectId: project.id,
    label: "Dietary needs",
    kind: "SHORT_TEXT",
    translations: [{ language: "de", label: "Ernährung" }],
  });
  await services.questions.setAnswers(systemActor, {
    attendeeId: checkedIn.id,
    answers: { [question.id]: "Vegetarian" },
  });
  return {
    project: project.id,
    room: globalId("Room", room.id),
    track: globalId("Track", track.id),
    speaker: globalId("Speaker", speaker.id),
    session: globalId("Session", session.id),
    ticket: globalId("TicketType", ticket.id),
    spareTicket: globalId("TicketType", spareTicket.id),
    checkedIn: globalId("Attendee", checkedIn.id),
    waiting: globalId("Attendee", waiting.id),
    order: globalId("Order", placed.order.id),
    discountCode: globalId("DiscountCode", code.id),
    question: globalId("RegistrationQuestion", question.id),
  };
}

type Ids = Awaited<ReturnType<typeof fixture>>;

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

function callOf(field: GraphQLField<unknown, unknown>, ids: Ids, extraArg?: string): string {
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
function probes(ids: Ids): Probe[] {
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

const without = (permission: Permission, from: readonly Permission[]) => from.filter((p) => p !== permission);

/** Each gated mutation with an input that succeeds on a fresh fixture. */
const mutationInputs: Record<string, (ids: Ids) => string> = {
  updateProject: (ids) => `{projectId: "${ids.project}", name: "Renamed"}`,
  createTestProject: () => "{}",
  resetTestProject: (ids) => `{projectId: "${ids.project}"}`,
  updateEventPage: (ids) =>
    `{projectId: "${ids.project}", pageEnabled: true, registrationOpen: false, companyField: HIDDEN}`,
  createSession: (ids) =>
    `{projectId: "${ids.project}", title: "New", startsAt: "2026-05-04T10:00:00Z", endsAt: "2026-05-04T11:00:00Z", roomId: "${ids.room}", trackId: "${ids.track}", speakerIds: ["${ids.speaker}"]}`,
  updateSession: (ids) => `{id: "${ids.session}", title: "Changed"}`,
  deleteSession: (ids) => `{id: "${ids.session}"}`,
  createSpeaker: (ids) => `{projectId: "${ids.project}", name: "Grace"}`,
  updateSpeaker: (ids) => `{id: "${ids.speaker}", name: "Grace"}`,
  deleteSpeaker: (ids) => `{id: "${ids.speaker}"}`,
  createRoom: (ids) => `{projectId: "${ids.project}", name: "Hall B"}`,
  updateRoom: (ids) => `{id: "${ids.room}", name: "Hall C"}`,
  deleteRoom: (ids) => `{id: "${ids.room}"}`,
  createTrack: (ids) => `{projectId: "${ids.project}", name: "Ops"}`,
  updateTrack: (ids) => `{id: "${ids.track}", name: "Ops"}`,
  deleteTrack: (ids) => `{id: "${ids.track}"}`,
  createTicketType: (ids) =>
    `{projectId: "${ids.project}", name: "VIP", priceMinor: 50000, currency: "EUR", quantity: 10}`,
  updateTicketType: (ids) => `{id: "${ids.ticket}", name: "Regular"}`,
  deleteTicketType: (ids) => `{id: "${ids.spareTicket}"}`,
  registerAttendee: (ids) =>
    `{projectId: "${ids.project}", name: "Lin", email: "lin-${Date.now()}@example.test", ticketTypeId: "${ids.ticket}"}`,
  updateAttendee: (ids) => `{id: "${ids.waiting}", name: "Lin"}`,
  cancelAttendee: (ids) => `{id: "${ids.waiting}"}`,
  eraseAttendee: (ids) => `{id: "${ids.waiting}"}`,
  markOrderPaid: (ids) => `{id: "${ids.order}"}`,
  cancelOrder: (ids) => `{id: "${ids.order}"}`,
  refundOrder: (ids) => `{id: "${ids.order}", amountMinor: 1}`,
  createDiscountCode: (ids) =>
    `{projectId: "${ids.project}", code: "NEW10", kind: PERCENTAGE, percentOff: 10}`,
  generateDiscountCodes: (ids) => `{projectId: "${ids.project}", count: 2, kind: PERCENTAGE, percentOff: 5}`,
  deleteDiscountCode: (ids) => `{id: "${ids.discountCode}"}`,
  createRegistrationQuestion: (ids) =>
    `{projectId: "${ids.project}", label: "T-shirt size", kind: SHORT_TEXT}`,
  deleteRegistrationQuestion: (ids) => `{id: "${ids.question}"}`,
  setAttendeeAnswers: (ids) =>
    `{attendeeId: "${ids.checkedIn}", answers: [{questionId: "${ids.question}", value: "Vegan"}]}`,
  checkInAttendee: (ids) => `{attendeeId: "${ids.waiting}"}`,
  undoCheckIn: (ids) => `{attendeeId: "${ids.checkedIn}"}`,
  // No ticket has this code: the answer is the outcome UNKNOWN_CODE, not an error.
  checkInByTicketCode: (ids) => `{projectId: "${ids.project}", ticketCode: "0000-0000-0000-0000"}`,
};

/**
 * Mutations with no permission of their own: a bulk query's every page runs as the app at that
 * moment (src/modules/bulk/bulk.graphql.ts), so its fields are checked as a request's are.
 */
const ungatedMutations = new Set(["bulkOperationRunQuery", "bulkOperationCancel"]);

/**
 * Mutations that need more than their permission, so the fixture's app holding it is still refused,
 * for the reason given: an app the operator made has no developer to make a test project for, and
 * the fixture's project is not a test project.
 */
const refusedBeyondPermission = new Map([
  ["createTestProject", /no developer/],
  ["resetTestProject", /Only a test project/],
]);

/** Mutations of a row that only their own permission can read. */
const unreadableWithoutPermission = new Set(["deleteDiscountCode"]);

// biome-ignore lint/suspicious/noExplicitAny: GraphQL error objects from the response body
type ResponseError = any;

for (const engine of testEngines()) {
  describe(`the field reference (${engine.name})`, () => {
    let server: TestServer;
    let page: Map<string, string>;

    before(async () => {
      // The walk sends a few hundred requests; the hourly budget is not what this suite tests.
      server = await startTestServer(engine, { RATE_LIMIT_APP_POINTS_PER_HOUR: "100000000" });
      const response = await fetch(`${server.url}/graphql/reference/`);
      assert.equal(response.status, 200);
      page = documentedPermissions(await response.text());
    });
    after(() => server?.close());

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

    test("matches what the API enforces for every field reachable from Query", async () => {
      const ids = await fixture(server);
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
      const ids = await fixture(server);
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

    test("matches what the API enforces for every mutation", async () => {
      const mutation = schema().getMutationType() as GraphQLObjectType;
      const fields = Object.values(mutation.getFields());
      assert.deepEqual(
        fields.map((f) => f.name).filter((name) => !mutationInputs[name] && !ungatedMutations.has(name)),
        [],
        "every mutation has an input in this test",
      );
      for (const field of fields) {
        if (ungatedMutations.has(field.name)) continue;
        const permission = declaredPermission(field, mutation);
        assert.ok(permission, `${field.name} declares a permission`);
        assert.equal(page.get(`Mutation.${field.name}`), permission);
        const payload = getNamedType(field.type) as GraphQLObjectType;
        const selection = Object.values(payload.getFields())
          .map((f) =>
            f.name === "userErrors"
              ? "userErrors { message }"
              : isLeafType(getNamedType(f.type))
                ? f.name
                : "id" in (getNamedType(f.type) as GraphQLObjectType).getFields()
                  ? `${f.name} { id }`
                  : `${f.name} { __typename }`,
          )
          .join(" ");
        const input = mutationInputs[field.name];
        if (!input) continue;

        const lackingIds = await fixture(server);
        const { token: lacking } = await createApp(server.services, {
          projectId: lackingIds.project,
          permissions: without(permission, allPermissions),
        });
        const refused = await gql(
          server.url,
          `mutation { ${field.name}(input: ${input(lackingIds)}) { ${selection} } }`,
          {
            token: lacking,
          },
        );
        // A row the caller cannot even read is NOT_FOUND (modules/access/row-access.ts): discount
        // codes are secrets read only with tickets:write.
        if (unreadableWithoutPermission.has(field.name)) {
          assert.equal(refused.body.errors?.[0]?.extensions?.code, "NOT_FOUND", field.name);
        } else {
          assert.equal(
            refused.body.errors?.[0]?.extensions?.code,
            "FORBIDDEN",
            `${field.name} without ${permission}`,
          );
          assert.equal(refused.body.errors?.[0]?.extensions?.requiredPermission, permission);
        }

        const holdingIds = await fixture(server);
        const { token: holding } = await createApp(server.services, {
          projectId: holdingIds.project,
          permissions: [permission],
        });
        const granted = await gql(
          server.url,
          `mutation { ${field.name}(input: ${input(holdingIds)}) { ${selection} } }`,
          {
            token: holding,
          },
        );
        const beyond = refusedBeyondPermission.get(field.name);
        if (beyond) {
          assert.match(JSON.stringify(granted.body), beyond, field.name);
          assert.equal(granted.body.errors?.[0]?.extensions?.requiredPermission, undefined, field.name);
          continue;
        }
        assert.equal(
          granted.body.errors,
          undefined,
          `${field.name} with ${permission}: ${JSON.stringify(granted.body)}`,
        );
        assert.deepEqual(granted.body.data[field.name].userErrors, [], field.name);
      }
    });
  });
}
