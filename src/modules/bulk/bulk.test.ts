import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createApp,
  createAttendee,
  createProject,
  createTicketType,
  userActor,
} from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { localId } from "../../graphql/ids.js";
import type { Permission } from "../access/permissions.js";

const run = `mutation ($projectId: ID!, $query: String!) {
  bulkOperationRunQuery(projectId: $projectId, query: $query) {
    bulkOperation { id status } userErrors { field message code }
  } }`;
const current = `query ($projectId: ID!) {
  currentBulkOperation(projectId: $projectId) { id status objectCount errorMessage url } }`;
const cancel = `mutation ($projectId: ID!) {
  bulkOperationCancel(projectId: $projectId) { bulkOperation { id status } userErrors { message code } } }`;

const attendeesQuery = (projectId: string) =>
  `{ project(id: "${projectId}") { attendees { edges { node { id name email } } } } }`;

for (const engine of testEngines()) {
  describe(`bulk operations (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine);
    });
    after(async () => {
      await server.close();
    });

    /** An app homed in a new project holding `count` attendees. */
    async function appWithAttendees(count: number, permissions: Permission[] = ["attendees:read"]) {
      const { app, token, projectId, ownerId } = await createApp(server.services, { permissions });
      const organizer = userActor(ownerId ?? "");
      const tickets = await createTicketType(server.services, organizer, projectId, { quantity: 100_000 });
      for (let i = 0; i < count; i++) {
        await createAttendee(server.services, organizer, projectId, tickets.id, { name: `Person ${i}` });
      }
      return { app, token, projectId, organizer };
    }

    const start = (token: string | undefined, projectId: string, query: string) =>
      gql(server.url, run, { ...(token ? { token } : {}), variables: { projectId, query } });

    /** Polls currentBulkOperation until the operation has ended. */
    async function finished(token: string, projectId: string) {
      for (let waited = 0; waited < 120_000; waited += 25) {
        const answer = await gql(server.url, current, { token, variables: { projectId } });
        const operation = answer.body.data?.currentBulkOperation;
        if (operation && operation.status !== "CREATED" && operation.status !== "RUNNING") return operation;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error("the bulk operation did not end");
    }

    test("refuses callers without an app token, queries of another project or shape, and invalid fields", async () => {
      const { token, projectId } = await appWithAttendees(0);
      const anonymous = await start(undefined, projectId, attendeesQuery(projectId));
      assert.equal(anonymous.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
      const other = await createProject(server.services);
      const elsewhere = await start(token, other.project.id, attendeesQuery(other.project.id));
      assert.equal(elsewhere.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      const bad = [
        attendeesQuery(other.project.id),
        "not graphql {",
        `mutation { bulkOperationCancel(projectId: "${projectId}") { userErrors { message } } }`,
        `{ project(id: "${projectId}") { attendees { edges { node { id } } } orders { edges { node { id } } } } }`,
        `{ project(id: "${projectId}") { ticketTypes { id } } }`,
        `{ project(id: "${projectId}") { attendees { edges { node { noSuchField } } } } }`,
        `query ($id: ID!) { project(id: $id) { attendees { edges { node { id } } } } }`,
      ];
      for (const query of bad) {
        const answer = await start(token, projectId, query);
        assert.deepEqual(answer.body.data.bulkOperationRunQuery.bulkOperation, null, query);
        assert.deepEqual(answer.body.data.bulkOperationRunQuery.userErrors[0].field, ["query"], query);
      }
      // Too costly per page: a page is held to a request's cost limit.
      const nested = `{ project(id: "${projectId}") { sessions { edges { node {
        speakers { sessions { speakers { name } } } } } } } }`;
      const costly = await start(token, projectId, nested);
      assert.equal(
        costly.body.errors?.[0]?.extensions?.code,
        "QUERY_TOO_COMPLEX",
        JSON.stringify(costly.body),
      );
      assert.equal(
        (await gql(server.url, current, { token, variables: { projectId } })).body.data.currentBulkOperation,
        null,
      );
      const nothingOpen = await gql(server.url, cancel, { token, variables: { projectId } });
      assert.equal(nothingOpen.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    });

    test("fails with the API's reason when a page reads fields beyond the app's permissions", async () => {
      const { token, projectId } = await appWithAttendees(3, ["agenda:read"]);
      const started = await start(token, projectId, attendeesQuery(projectId));
      assert.deepEqual(started.body.data.bulkOperationRunQuery.userErrors, []);
      const operation = await finished(token, projectId);
      assert.equal(operation.status, "FAILED");
      assert.match(operation.errorMessage, /attendees:read/);
      assert.equal(operation.url, null);
    });

    test("writes each attendee as one JSON line, downloaded from a signed link that cannot be altered", async () => {
      const { token, projectId } = await appWithAttendees(230);
      const started = await start(token, projectId, attendeesQuery(projectId));
      assert.equal(started.body.data.bulkOperationRunQuery.bulkOperation.status, "CREATED");
      const operation = await finished(token, projectId);
      assert.equal(operation.status, "COMPLETED");
      assert.equal(operation.objectCount, 230);
      assert.doesNotMatch(operation.url, /evg_/);
      const response = await fetch(operation.url);
      assert.equal(response.status, 200);
      const lines = (await response.text())
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.equal(lines.length, 230);
      assert.equal(new Set(lines.map((l) => l.id)).size, 230);
      assert.deepEqual(Object.keys(lines[0]).sort(), ["email", "id", "name"]);
      assert.equal(lines[0].name, "Person 0");

      const url = new URL(operation.url);
      const token2 = url.searchParams.get("token") ?? "";
      const altered = [
        url.href.replace(token2, `${token2.slice(0, -1)}${token2.endsWith("A") ? "B" : "A"}`),
        url.href.replace(/expires=\d+/, `expires=${Date.now() + 86_400_000}`),
        url.href.replace(/expires=\d+/, `expires=${Date.now() - 1}`),
        url.href.replace(operation.id, "someoneelse0"),
        `${url.origin}${url.pathname}`,
      ];
      for (const href of altered) assert.equal((await fetch(href)).status, 404, href);
    });

    test("erasing an attendee withdraws every result that names them, and the next run has them erased", async () => {
      const { token, projectId, organizer } = await appWithAttendees(3);
      await start(token, projectId, attendeesQuery(projectId));
      const before = await finished(token, projectId);
      assert.equal(before.status, "COMPLETED");
      const lines = (await (await fetch(before.url)).text()).trimEnd().split("\n");
      const erased = JSON.parse(lines[1] ?? "");
      await server.services.attendees.eraseAttendee(organizer, { id: localId(erased.id, "Attendee") ?? "" });

      const withdrawn = await finished(token, projectId);
      assert.equal(withdrawn.status, "EXPIRED");
      assert.equal(withdrawn.url, null);
      assert.equal((await fetch(before.url)).status, 404);
      const left = await server.database.db
        .selectFrom("bulk_operation_chunks")
        .select("lines")
        .where("project_id", "=", projectId)
        .execute();
      assert.deepEqual(left, []);

      await start(token, projectId, attendeesQuery(projectId));
      const again = await finished(token, projectId);
      const text = await (await fetch(again.url)).text();
      assert.ok(!text.includes(erased.email) && !text.includes(erased.name), text);
      assert.match(text, /Erased attendee/);
    });
  });
}
