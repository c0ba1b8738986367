import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createApp, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 38: the cost-limit error answered {limit, value, max} while docs/guides/03-errors.md promised
// {cost, maxCost}, and a duplicate registerAttendee answered a userError where the guide showed a
// CONFLICT error. These are the guide's examples, checked against the real server.
describe("the error shapes docs/guides/03-errors.md shows", () => {
  const server = serverPerSuite(sqliteEngine, { MAX_QUERY_COST: "2000" });

  test("QUERY_TOO_COMPLEX for cost carries limit, value, max and the documented cost, maxCost", async () => {
    const { status, body } = await gql(
      server.url,
      `{ project(id: "ABCD") { speakers(first: 100) { edges { node { sessions { project { sessions(first: 100) { edges { node { title } } } } } } } } } }`,
    );
    assert.equal(status, 400);
    const [error] = body.errors;
    assert.equal(error.extensions.code, "QUERY_TOO_COMPLEX");
    assert.equal(error.extensions.limit, "cost");
    assert.equal(error.extensions.max, 2000);
    assert.equal(error.extensions.maxCost, 2000);
    assert.equal(error.extensions.cost, error.extensions.value);
    assert.ok(error.extensions.cost > 2000);
    assert.equal(error.message, `cost is ${error.extensions.cost}, the limit is 2000`);
    assert.deepEqual(Object.keys(error.extensions).sort(), [
      "code",
      "cost",
      "limit",
      "max",
      "maxCost",
      "value",
    ]);
  });

  test("a second registerAttendee for one email answers the documented userErrors entry", async () => {
    const { project, owner, ownerId } = await createPublishedProject(server.services);
    const ticket = await createTicketType(server.services, owner, project.id, { priceMinor: 0 });
    const { token } = await createApp(server.services, {
      projectId: project.id,
      ownerId,
      permissions: ["attendees:write", "attendees:read", "tickets:read"],
    });
    const register = () =>
      gql(
        server.url,
        `mutation ($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } userErrors { field message code } } }`,
        {
          token,
          variables: {
            input: {
              projectId: project.id,
              ticketTypeId: globalId("TicketType", ticket.id),
              name: "Ada",
              email: "ada-twice@example.org",
            },
          },
        },
      );
    const first = await register();
    assert.deepEqual(first.body.data.registerAttendee.userErrors, [], JSON.stringify(first.body));
    const second = await register();
    assert.equal(second.status, 200);
    assert.equal(second.body.errors, undefined, "not an error");
    assert.deepEqual(second.body.data, {
      registerAttendee: {
        attendee: null,
        userErrors: [{ field: ["email"], message: "is already registered for this event", code: "CONFLICT" }],
      },
    });
  });
});
