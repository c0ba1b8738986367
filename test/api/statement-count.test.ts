import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { feedListens } from "../helpers/change-feed.js";
import { startDemoServer } from "../helpers/demo-server.js";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import type { TestServer } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

const agendaQuery = `query Agenda($id: ID!, $first: Int!) {
  project(id: $id) {
    sessions(first: $first) {
      edges { node { id title room { name } track { name } speakers { name company } } }
    }
  }
}`;

const attendeesQuery = `query Attendees($id: ID!, $first: Int!) {
  project(id: $id) {
    attendees(first: $first) {
      edges { node { id name ticketType { name } checkedIn checkIn { checkedInAt } checkIns { checkedInAt } } }
    }
  }
}`;

const registeredQuery = `query Registered($id: ID!) {
  project(id: $id) { attendees(first: 1, status: REGISTERED) { edges { node { id } } } }
}`;
const checkInMutation = `mutation CheckIn($input: CheckInAttendeeInput!) {
  checkInAttendee(input: $input) { checkIn { checkedInAt } userErrors { message } }
}`;
const undoMutation = `mutation Undo($input: CheckInAttendeeInput!) {
  undoCheckIn(input: $input) { checkIn { undoneAt } userErrors { message } }
}`;

for (const engine of testEngines()) {
  describe(`SQL statements per API request (${engine.name})`, () => {
    let server: TestServer;
    let projectId: string;
    let token: string;
    before(async () => {
      // The demo conference at ×2: 120 sessions (with rooms, tracks and speakers) and 4,000
      // attendees (with ticket types and check-ins), a new organizer and project per run.
      ({ server, projectId, token } = await startDemoServer(engine, {
        scale: 2,
        seed: 7,
        app: { name: "Statement counter", permissions: ["agenda:read", "attendees:read", "checkins:write"] },
      }));
      // The project's status and versions are remembered until it changes: on PostgreSQL the change
      // feed brings the setup's writes again, and one arriving between two requests of a test would
      // make the second read them once more.
      await feedListens(server.services);
    });
    after(() => server.close());

    // The token's row is read on its first use only (graphql/authentication.ts), and again after
    // another test file changed credentials on a shared PostgreSQL database: never the request's work.
    const withoutTokenLookup = (statements: string[]) =>
      statements.filter((s) => !/from "apps" where "token_hash"/.test(s));

    // The webhook dispatcher and the workers for ticket mails, bulk operations, waiting-list offers and
    // order holds poll for work other processes queued: a poll is no request's work, yet lands inside
    // a request's window whenever the timing says so (more often on a slower or loaded host).
    const pollMarks = [
      "webhook_deliveries",
      "ticket_mails",
      "bulk_operations",
      "waiting_list_entries",
      '"hold_expires_at"',
    ];
    const isBackgroundPoll = (statement: string) => pollMarks.some((mark) => statement.includes(mark));
    const isDispatcherPoll = (statement: string) => statement.includes("webhook_deliveries");

    /** Waits for the dispatcher's next idle poll to end: the one after it is 5 s away. */
    async function afterIdlePoll(): Promise<void> {
      server.statements.length = 0;
      const deadline = Date.now() + 7_000;
      while (!server.statements.some(isDispatcherPoll)) {
        assert.ok(Date.now() < deadline, "the dispatcher did not poll within 7 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    // Runs one request and returns the statements it executed, checking that it answered the page.
    async function statementsFor(query: string, first: number, connection: string, authenticated: boolean) {
      server.statements.length = 0;
      const { status, body } = await gql(server.url, query, {
        variables: { id: projectId, first },
        ...(authenticated ? { token } : {}),
      });
      const statements = withoutTokenLookup(server.statements).filter((s) => !isBackgroundPoll(s));
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      assert.equal(body.data.project[connection].edges.length, first);
      return statements;
    }

    test("a page of 100 sessions with room, track and speakers takes as many statements as a page of 10", async () => {
      const ten = await statementsFor(agendaQuery, 10, "sessions", false);
      const hundred = await statementsFor(agendaQuery, 100, "sessions", false);
      assert.equal(hundred.length, ten.length, `10: ${ten.join("\n")}\n100: ${hundred.join("\n")}`);
      // Project lookup, the page, then one statement per relation: a small constant.
      assert.ok(ten.length >= 4 && ten.length <= 6, ten.join("\n"));
      // Loaded once, with the page: the rows' speakers are answered from what the page preloaded.
      const speakerReads = hundred.filter((sql) => /from "session_speakers"/.test(sql));
      assert.equal(speakerReads.length, 1, hundred.join("\n"));
    });

    test("a page of 100 attendees with ticket type and check-ins takes as many statements as a page of 10", async () => {
      const ten = await statementsFor(attendeesQuery, 10, "attendees", true);
      const hundred = await statementsFor(attendeesQuery, 100, "attendees", true);
      assert.equal(hundred.length, ten.length, `10: ${ten.join("\n")}\n100: ${hundred.join("\n")}`);
      assert.ok(ten.length >= 4 && ten.length <= 7, ten.join("\n"));
    });

    test("a page reads only the columns its selection asks for, and a page of any size is the same statement", {
      skip: fastPathOff("projection"),
    }, async () => {
      // Sizes no earlier test asked for, so both are executed rather than answered from the cache.
      const small = await statementsFor(agendaQuery, 12, "sessions", false);
      const large = await statementsFor(agendaQuery, 90, "sessions", false);
      const page = small.find((sql) => /from "sessions"/.test(sql));
      assert.ok(page, small.join("\n"));
      assert.doesNotMatch(page, /"description"|\*/, page);
      const speakers = small.find((sql) => /from "session_speakers"/.test(sql));
      assert.ok(speakers, small.join("\n"));
      // Nor the speaker's own key: the page groups them by session, and asks for no id.
      assert.doesNotMatch(speakers, /"bio"|"links"|"project_id"|\*/, speakers);
      // The loaders take their ids as one parameter: 90 sessions run the statements 12 did.
      assert.deepEqual([...large].sort(), [...small].sort());
    });

    test("a page that selects no field of the project does not read the project's row", {
      skip: fastPathOff("projection"),
    }, async () => {
      const projectReads = (statements: string[]) => statements.filter((sql) => /from "projects"/.test(sql));
      // Only the access check (status and versions) reads the project; `name` is not read.
      const page = projectReads(await statementsFor(agendaQuery, 13, "sessions", false));
      assert.ok(page.length <= 1, page.join("\n"));
      assert.ok(!page.some((sql) => /"name"/.test(sql)), page.join("\n"));
      // Ask for a field of the row as well, and the row is read.
      const named = agendaQuery.replace("project(id: $id) {", "project(id: $id) { name");
      server.statements.length = 0;
      const { body } = await gql(server.url, named, { variables: { id: projectId, first: 13 } });
      assert.equal(typeof body.data.project.name, "string", JSON.stringify(body));
      const withName = projectReads(server.statements);
      assert.equal(withName.filter((sql) => /"name"/.test(sql)).length, 1, withName.join("\n"));
    });

    test("the project's status and versions are read once, and again only after the project changed", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const statusReads = (statements: string[]) =>
        statements.filter((sql) => /select "projects"."status"/.test(sql));
      // Two pages that are not cached (different sizes) of a project nobody writes to: read at most
      // for the first (an earlier test may have read them already), never for the second.
      await statementsFor(agendaQuery, 14, "sessions", false);
      assert.deepEqual(statusReads(await statementsFor(agendaQuery, 15, "sessions", false)), []);
      // A check-in changes the project: the next page reads them again, once. (Checked in first, so
      // that the undo has something to undo: an undo that changes nothing announces nothing.)
      const list = await gql(server.url, registeredQuery, { variables: { id: projectId }, token });
      const attendeeId = list.body.data.project.attendees.edges[0].node.id;
      await gql(server.url, checkInMutation, { variables: { input: { attendeeId } }, token });
      await gql(server.url, undoMutation, { variables: { input: { attendeeId } }, token });
      // On PostgreSQL the change feed brings the same write again: let it arrive first.
      await feedListens(server.services);
      assert.equal(statusReads(await statementsFor(agendaQuery, 16, "sessions", false)).length, 1);
      assert.deepEqual(statusReads(await statementsFor(agendaQuery, 17, "sessions", false)), []);
    });

    test("a check-in takes ten statements, none of them the webhook dispatcher's when no app subscribed", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const list = await gql(server.url, registeredQuery, { variables: { id: projectId }, token });
      const attendeeId = list.body.data.project.attendees.edges[0].node.id;
      // The demo may have checked them in already: a check-in that is no new event writes nothing.
      await gql(server.url, undoMutation, { variables: { input: { attendeeId } }, token });
      await server.services.apps.flushUsage();
      // On PostgreSQL the worker's database holds what earlier files left: deliveries still pending
      // to receivers long closed, which the dispatcher's rounds go on retrying. Those files are done
      // (a worker runs one file at a time), so their deliveries go, and no round of theirs can fall
      // into the window below.
      await server.database.db
        .deleteFrom("webhook_deliveries")
        .where("status", "=", "PENDING")
        .where("project_id", "<>", projectId)
        .execute();
      // So that a dispatcher statement below can only be one the write woke.
      await afterIdlePoll();
      server.statements.length = 0;
      const { body } = await gql(server.url, checkInMutation, {
        variables: { input: { attendeeId } },
        token,
      });
      assert.deepEqual(body.data.checkInAttendee.userErrors, [], JSON.stringify(body));
      assert.ok(body.data.checkInAttendee.checkIn.checkedInAt);
      // A dispatcher woken by the write would run its claim right after the commit.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The other workers' polls are no part of a check-in (and touch no delivery).
      const statements = withoutTokenLookup(server.statements).filter(
        (s) => isDispatcherPoll(s) || !isBackgroundPoll(s),
      );
      assert.ok(!statements.some((s) => s.includes("webhook_deliveries")), statements.join("\n"));
      // Attendee; begin, attendee lock, check-in, audit entry, subscribers, version bump, commit (it
      // was 17: a dispatcher round and four reads more). The app's access to the project is
      // remembered from the undo; on PostgreSQL, other test files' settings changes on the shared
      // database may make it (and the token) be read once more.
      const expected = engine.name === "sqlite" ? 8 : 9;
      assert.ok(statements.length <= expected, statements.join("\n"));
    });
  });
}
