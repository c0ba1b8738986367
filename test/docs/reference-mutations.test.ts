import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type GraphQLObjectType, getNamedType, isLeafType } from "graphql";
import { schema } from "../../src/api-schema.js";
import { declaredPermission } from "../../src/graphql/permissions.js";
import { allPermissions } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import {
  type ReferenceIds,
  referenceFixture,
  referencePerSuite,
  without,
} from "../helpers/field-reference.js";
import { gql } from "../helpers/graphql.js";

/** Each gated mutation with an input that succeeds on a fresh fixture. */
const mutationInputs: Record<string, (ids: ReferenceIds) => string> = {
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

for (const engine of testEngines()) {
  describe(`the field reference against the API's mutations (${engine.name})`, () => {
    const { server, page } = referencePerSuite(engine);

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

        const lackingIds = await referenceFixture(server);
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

        const holdingIds = await referenceFixture(server);
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
