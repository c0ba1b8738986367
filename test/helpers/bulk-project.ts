import assert from "node:assert/strict";
import { guessMapping, parseAttendeeCsv } from "../../src/modules/attendees/attendees-csv.js";
import { createApp, createTicketType, userActor } from "./factories.js";
import { gql } from "./graphql.js";
import type { TestServer } from "./test-server.js";

const run = `mutation ($projectId: ID!, $query: String!) {
  bulkOperationRunQuery(projectId: $projectId, query: $query) {
    bulkOperation { id status } userErrors { field message code } } }`;
const current = `query ($projectId: ID!) {
  currentBulkOperation(projectId: $projectId) { id status objectCount errorMessage url } }`;

export interface BulkOperationView {
  id: string;
  status: string;
  objectCount: number;
  errorMessage: string | null;
  url: string | null;
}

/**
 * A project of `attendees` imported attendees and an app reading them, with the calls a bulk test
 * makes: start an operation over them, read the current one, and wait until one gets somewhere.
 */
export async function bulkProject(server: TestServer, attendees: number) {
  const made = await createApp(server.services, { permissions: ["attendees:read"] });
  const { projectId, token } = made;
  const organizer = userActor(made.ownerId ?? "");
  await createTicketType(server.services, organizer, projectId, { name: "Standard", quantity: attendees });
  const rows = Array.from({ length: attendees }, (_, i) => `Person ${i},p${i}@example.test,Standard`);
  const parsed = await parseAttendeeCsv(`name,email,ticket_type\n${rows.join("\n")}\n`);
  const outcome = await server.services.attendeeFiles.importRows(
    organizer,
    projectId,
    parsed,
    guessMapping(parsed.headers),
    { dryRun: false },
  );
  assert.equal(outcome.imported, attendees);

  const query = `{ project(id: "${projectId}") { attendees { edges { node {
    id name email company status ticketCode registeredAt } } } } }`;
  const start = (as: string) => gql(server.url, run, { token: as, variables: { projectId, query } });
  const read = async (as: string): Promise<BulkOperationView | null> =>
    (await gql(server.url, current, { token: as, variables: { projectId } })).body.data.currentBulkOperation;
  async function until(as: string, done: (operation: BulkOperationView) => boolean) {
    for (let waited = 0; waited < 120_000; waited += 20) {
      const operation = await read(as);
      if (operation && done(operation)) return operation;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("the bulk operation did not get there");
  }
  const ended = (o: BulkOperationView) => o.status !== "CREATED" && o.status !== "RUNNING";
  return { projectId, token, organizer, current, start, until, ended };
}
