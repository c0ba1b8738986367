import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ErrorCode, httpStatusFor } from "../../src/errors.js";
import { testEngines } from "../helpers/engines.js";
import { createAttendee, createTicketType, userActor } from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

const graphqlResponse = "application/graphql-response+json";

for (const engine of testEngines()) {
  describe(`one error table for every transport (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    async function call(init: RequestInit & { query?: string }, path = "/api/graphql") {
      const response = await fetch(`${server.url}${path}`, init);
      const body = (await response.json()) as { errors: { extensions: { code: ErrorCode } }[] };
      return { status: response.status, headers: response.headers, code: body.errors[0]?.extensions.code };
    }

    test("answers each refused API request with its own code and the table's status", async () => {
      const cases: [ErrorCode, Promise<Awaited<ReturnType<typeof call>>>][] = [
        [
          "NOT_ACCEPTABLE",
          call({
            method: "POST",
            headers: { "content-type": "application/json", accept: "text/html" },
            body: '{"query":"{ __typename }"}',
          }),
        ],
        [
          "UNSUPPORTED_MEDIA_TYPE",
          call({ method: "POST", headers: { "content-type": "text/plain" }, body: "{ __typename }" }),
        ],
        [
          "METHOD_NOT_ALLOWED",
          call(
            { method: "GET" },
            `/api/graphql?query=${encodeURIComponent('mutation { deleteTrack(input: {id: "x"}) { track { id } } }')}`,
          ),
        ],
        [
          "BAD_REQUEST",
          call({ method: "POST", headers: { "content-type": "application/json" }, body: '{"variables":{}}' }),
        ],
        [
          "UNAUTHENTICATED",
          call({
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer nope" },
            body: '{"query":"{ __typename }"}',
          }),
        ],
        [
          "GRAPHQL_VALIDATION_FAILED",
          call({
            method: "POST",
            headers: { "content-type": "application/json", accept: graphqlResponse },
            body: '{"query":"{ nope }"}',
          }),
        ],
      ];
      for (const [code, answer] of cases) {
        const { status, code: answered, headers } = await answer;
        assert.equal(answered, code);
        assert.equal(status, httpStatusFor(code), code);
        if (code === "METHOD_NOT_ALLOWED") assert.equal(headers.get("allow"), "POST");
        if (code === "UNAUTHENTICATED") assert.match(headers.get("www-authenticate") ?? "", /invalid_token/);
      }
    });

    test("re-renders a dashboard form refused by a conflict with the table's 409, not a blanket 400", async () => {
      const { user: owner, project } = await createOrganizer(server.services);
      const ticket = await createTicketType(server.services, userActor(owner.id), project.id);
      const taken = await createAttendee(server.services, userActor(owner.id), project.id, ticket.id);
      const client = await logIn(server.url, owner.email);
      await client.get(`/b/${project.id}/attendees`);
      const again = await client.post(`/b/${project.id}/attendees`, {
        name: "Grace Again",
        email: taken.email,
        ticketTypeId: ticket.id,
      });
      assert.equal(again.status, httpStatusFor("CONFLICT"));
      assert.match(again.body, /already registered/);
      await client.get(`/b/${project.id}/attendees`);
      const blank = await client.post(`/b/${project.id}/attendees`, {
        name: "",
        email: "",
        ticketTypeId: ticket.id,
      });
      assert.equal(blank.status, httpStatusFor("BAD_USER_INPUT"));
    });
  });
}
