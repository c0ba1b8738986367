import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { changeFeedApplicationName } from "../../src/db/change-feed.js";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { changeArrives as changeArrivesAt, feedListens as feedListensAt } from "../helpers/change-feed.js";
import type { TestEngine } from "../helpers/engines.js";
import { testEngines } from "../helpers/engines.js";
import {
  createAttendee,
  createPublishedProject,
  createSession,
  createTicketType,
  uniqueEmail,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const agendaQuery = `query Agenda($id: ID!) {
  project(id: $id) { name sessions(first: 50) { edges { node { id title room { name } speakers { name } } } } }
}`;
const attendeesQuery = `query Attendees($id: ID!) {
  project(id: $id) { attendees(first: 50) { edges { node { id name checkedIn checkIn { checkedInAt } } } } }
}`;
const ticketsQuery = `query Tickets($id: ID!) {
  project(id: $id) { ticketTypes(first: 10) { edges { node { name sold remaining } } } }
}`;
const checkInMutation = `mutation CheckIn($id: ID!) {
  checkInAttendee(input: { attendeeId: $id }) { checkIn { checkedInAt } userErrors { message } }
}`;

// biome-ignore lint/suspicious/noExplicitAny: answers are read by the shape of each query
type Answer = { status: number; body: any };

for (const engine of testEngines()) {
  describe(`Response cache invalidation by what changed (${engine.name})`, () => {
    let server: TestServer;
    let projectId: string;
    let token: string;
    let attendeeId: string;
    let ticketTypeId: string;
    before(async () => {
      server = await startTestServer(engine);
      const { project, owner } = await createPublishedProject(server.services);
      projectId = project.id;
      await createSession(server.services, owner, projectId, {
        title: "Opening keynote",
        status: "PUBLISHED",
      });
      const ticket = await createTicketType(server.services, owner, projectId);
      ticketTypeId = ticket.id;
      const attendee = await createAttendee(server.services, owner, projectId, ticket.id);
      attendeeId = attendee.id;
      ({ token } = await server.services.apps.createApp(systemActor, {
        projectId,
        name: "Door",
        permissions: ["agenda:read", "attendees:read", "tickets:read", "checkins:write"],
      }));
    });
    after(() => server.close());

    const ask = (query: string, url = server.url): Promise<Answer> =>
      gql(url, query, { variables: { id: projectId }, token }) as Promise<Answer>;

    const changeArrives = () => changeArrivesAt(server.services, projectId);
    const feedListens = () => feedListensAt(server.services);

    test("a check-in keeps the agenda cached and evicts the attendee answers", async () => {
      await ask(agendaQuery);
      await ask(attendeesQuery);
      assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
      assert.equal((await ask(attendeesQuery)).body.extensions.cached, true);

      const done = await gql(server.url, checkInMutation, {
        variables: { id: globalId("Attendee", attendeeId) },
        token,
      });
      assert.deepEqual(done.body.data.checkInAttendee.userErrors, []);

      const agenda = await ask(agendaQuery);
      assert.equal(agenda.body.extensions.cached, true, "the agenda survives a check-in");
      const attendees = await ask(attendeesQuery);
      assert.equal(attendees.body.extensions.cached, false, "the attendee page is recomputed");
      assert.equal(attendees.body.data.project.attendees.edges[0].node.checkedIn, true);
    });

    test("a registration evicts the ticket counts; an agenda edit evicts the agenda only", async () => {
      await ask(ticketsQuery);
      await ask(agendaQuery);
      assert.equal((await ask(ticketsQuery)).body.extensions.cached, true);
      await createAttendee(server.services, systemActor, projectId, ticketTypeId);
      const tickets = await ask(ticketsQuery);
      assert.equal(tickets.body.extensions.cached, false);
      assert.equal(tickets.body.data.project.ticketTypes.edges[0].node.sold, 2);
      assert.equal((await ask(agendaQuery)).body.extensions.cached, true);

      await ask(attendeesQuery);
      await createSession(server.services, systemActor, projectId, {
        title: "Closing panel",
        status: "PUBLISHED",
      });
      const agenda = await ask(agendaQuery);
      assert.equal(agenda.body.extensions.cached, false);
      assert.equal(agenda.body.data.project.sessions.edges.length, 2);
      assert.equal((await ask(attendeesQuery)).body.extensions.cached, true);
    });

    test("a registration on the public event page evicts ticket counts, not the agenda", async () => {
      const free = await createTicketType(server.services, systemActor, projectId, { priceMinor: 0 });
      await ask(ticketsQuery);
      await ask(agendaQuery);
      assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
      assert.equal((await ask(ticketsQuery)).body.extensions.cached, true);
      const outcome = await server.services.eventPage.register(
        {
          projectId,
          ticketTypeId: free.id,
          name: "Walk-in Visitor",
          email: uniqueEmail("walk-in"),
          idempotencyKey: randomUUID(),
        },
        "10.9.8.7",
      );
      assert.equal(outcome.kind, "registered");
      assert.equal((await ask(agendaQuery)).body.extensions.cached, true, "the agenda stays cached");
      assert.equal((await ask(ticketsQuery)).body.extensions.cached, false, "the seat counts are recomputed");
    });

    test("this process's write evicts once: its notification does not evict again", async () => {
      await feedListens();
      const heard: string[] = [];
      const off = server.services.database.changeFeed?.subscribe((id) => heard.push(id));
      try {
        await createSession(server.services, systemActor, projectId, { title: "Lightning talks" });
        assert.equal((await ask(agendaQuery)).body.extensions.cached, false);
        assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
        // Every notification sent before the marker has arrived: the write's own was left out, so
        // it could not evict what was computed after the write (which the write evicted at once).
        await feedListens();
        assert.deepEqual(
          heard.filter((id) => id === projectId),
          [],
        );
      } finally {
        off?.();
      }
    });

    test("another process's writes are seen at once (no Redis)", async () => {
      // A second server on the same database, as a second process or the CLI would be.
      const same: TestEngine = { name: engine.name, newDatabaseUrl: () => server.config.databaseUrl };
      const other = await startTestServer(same);
      try {
        await feedListens();
        await ask(agendaQuery);
        assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
        let arrived = changeArrives();
        await createSession(other.services, systemActor, projectId, {
          title: "Added elsewhere",
          status: "PUBLISHED",
        });
        await arrived;
        const agenda = await ask(agendaQuery);
        assert.equal(agenda.body.extensions.cached, false);
        const titles = agenda.body.data.project.sessions.edges.map(
          (e: { node: { title: string } }) => e.node.title,
        );
        assert.ok(titles.includes("Added elsewhere"), titles.join(", "));
        // A check-in made elsewhere evicts the attendee answers here too, not the agenda.
        await ask(attendeesQuery);
        const second = await createAttendee(other.services, systemActor, projectId, ticketTypeId);
        await ask(attendeesQuery);
        await ask(agendaQuery);
        arrived = changeArrives();
        await other.services.checkins.checkIn(systemActor, { attendeeId: second.id });
        await arrived;
        const attendees = await ask(attendeesQuery);
        assert.equal(attendees.body.extensions.cached, false);
        assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
      } finally {
        await other.close();
      }
    });

    test("a project unpublished by another process is hidden from the public at once", async () => {
      const publicQuery = (n: number) => `query Public($id: ID!) { project(id: $id) { name n${n}: id } }`;
      const askPublicly = (n: number) =>
        gql(server.url, publicQuery(n), { variables: { id: projectId } }) as Promise<Answer>;
      const { project, owner } = await createPublishedProject(server.services);
      const ownId = project.id;
      const askOwn = (n: number) =>
        gql(server.url, publicQuery(n), { variables: { id: ownId } }) as Promise<Answer>;
      const same: TestEngine = { name: engine.name, newDatabaseUrl: () => server.config.databaseUrl };
      const other = await startTestServer(same);
      try {
        await feedListens();
        // Two different queries (both misses): the second finds the status remembered.
        assert.equal((await askOwn(1)).body.data.project.name, project.name);
        server.statements.length = 0;
        assert.equal((await askOwn(2)).body.data.project.name, project.name);
        // (The project's row is read for its name; the access check's read of status and versions is not.)
        assert.deepEqual(
          server.statements.filter((s) => /select "id", "status"/.test(s)),
          [],
        );
        const arrived = changeArrivesAt(server.services, ownId);
        await other.services.projects.update(owner, ownId, { status: "DRAFT" });
        await arrived;
        // Neither a new query nor a cached one shows it any more.
        assert.equal((await askOwn(3)).body.data.project, null);
        assert.equal((await askOwn(2)).body.data.project, null);
        assert.ok((await askPublicly(3)).body.data.project, "another project is not affected");
      } finally {
        await other.close();
      }
    });

    test("a hit runs no SQL while no other process can have written unseen", async () => {
      // SQLite knows of other processes' writes from data_version, PostgreSQL from its change feed.
      await feedListens();
      await ask(agendaQuery);
      await ask(agendaQuery);
      server.statements.length = 0;
      const hit = await ask(agendaQuery);
      assert.equal(hit.body.extensions.cached, true);
      // The token is still looked up; the project's versions are not.
      const versionReads = server.statements.filter((s) => /"project_versions"/.test(s));
      assert.deepEqual(versionReads, []);
    });

    if (engine.name === "postgres") {
      test("while the change feed is cut, every hit checks the versions; it reconnects by itself", async () => {
        await feedListens();
        await ask(agendaQuery);
        // This test process has one feed (the other files run in their own processes).
        const name = `${changeFeedApplicationName}${process.pid}`;
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${name}`.execute(
          server.services.database.db,
        );
        const deadline = Date.now() + 5_000;
        while (server.services.database.externalWrites() !== undefined) {
          assert.ok(Date.now() < deadline, "the cut was not noticed");
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        server.statements.length = 0;
        assert.equal((await ask(agendaQuery)).body.extensions.cached, true);
        const versionReads = server.statements.filter((s) => /"project_versions"/.test(s));
        assert.equal(versionReads.length, 1, server.statements.join("\n"));
        // Back within the first retry (250 ms); a write elsewhere then evicts by notification again.
        await feedListens();
        const same: TestEngine = { name: engine.name, newDatabaseUrl: () => server.config.databaseUrl };
        const other = await startTestServer(same);
        try {
          await ask(ticketsQuery);
          assert.equal((await ask(ticketsQuery)).body.extensions.cached, true);
          const arrived = changeArrives();
          await createAttendee(other.services, systemActor, projectId, ticketTypeId);
          await arrived;
          assert.equal((await ask(ticketsQuery)).body.extensions.cached, false);
        } finally {
          await other.close();
        }
      });
    }

    // Only where a read can be held: on SQLite a read from outside a transaction runs on a
    // connection of its own and never waits (src/db/sqlite-direct.ts), so nothing keeps the first
    // execution running while the others arrive. Single flight itself knows no engine (execution.ts).
    if (engine.name === "postgres")
      test("concurrent misses of one key run once (single flight)", async () => {
        await createSession(server.services, systemActor, projectId, {
          title: "Evicts the agenda",
          status: "PUBLISHED",
        });
        await ask(attendeesQuery); // the token is remembered: nothing but the execution reads the database
        server.statements.length = 0;
        // The sessions table is held until all twenty requests have arrived, so the first execution
        // waits on it while the others come in: without single flight each would run its own.
        let arrived = 0;
        const countArrival = () => arrived++;
        server.app.server.on("request", countArrival);
        let release!: () => void;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const holder = server.database.db.transaction().execute(async (trx) => {
          // The lock blocks readers.
          await sql`lock table sessions in access exclusive mode`.execute(trx);
          locked();
          await released;
        });
        await isLocked;
        const before = server.services.responseCache.stats();
        const asked = Promise.all(Array.from({ length: 20 }, () => ask(agendaQuery)));
        try {
          for (let waited = 0; arrived < 20 && waited < 10_000; waited += 10) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          // Each request, once read, reaches the execution queue within a few turns.
          await new Promise((resolve) => setTimeout(resolve, 100));
        } finally {
          server.app.server.off("request", countArrival);
          release();
          await holder;
        }
        const answers = await asked;
        for (const answer of answers) assert.equal(answer.body.data.project.sessions.edges.length, 4);
        const executed = answers.filter((a) => a.body.extensions.cached === false).length;
        const sessionReads = server.statements.filter((s) => /from "sessions"/.test(s)).length;
        // One execution for all twenty answers.
        assert.equal(sessionReads, 1, server.statements.join("\n"));
        assert.equal(executed, 20);
        // Counted as one miss that ran and nineteen answers that did not (hits, for the hit ratio).
        const counted = server.services.responseCache.stats();
        assert.equal(counted.misses - before.misses, 1);
        assert.equal(counted.hits - before.hits, 19);
      });

    // Last: it registers an attendee, which the counts asserted above would see.
    test("a check-in that changes nothing evicts nothing: a repeat, a second scan, an empty undo", async () => {
      const attendee = await createAttendee(server.services, systemActor, projectId, ticketTypeId);
      const id = globalId("Attendee", attendee.id);
      const mutate = async (query: string, variables: Record<string, unknown>) =>
        (await gql(server.url, query, { variables, token })).body.data;
      const undo = `mutation Undo($id: ID!) { undoCheckIn(input: { attendeeId: $id }) { checkIn { undoneAt } } }`;
      const scan = `mutation Scan($input: CheckInByTicketCodeInput!) { checkInByTicketCode(input: $input) { outcome } }`;
      const cachedAfter = async (write: () => Promise<void>) => {
        await ask(attendeesQuery);
        assert.equal((await ask(attendeesQuery)).body.extensions.cached, true);
        await write();
        return (await ask(attendeesQuery)).body.extensions.cached;
      };

      // Nothing to undo yet; then the first check-in changes something, its repeats do not.
      assert.equal(await cachedAfter(() => mutate(undo, { id })), true, "an undo with nothing to undo");
      assert.equal(await cachedAfter(() => mutate(checkInMutation, { id })), false, "the first check-in");
      const repeat = await cachedAfter(async () => {
        const again = await mutate(checkInMutation, { id });
        assert.deepEqual(again.checkInAttendee.userErrors, []);
        assert.ok(again.checkInAttendee.checkIn.checkedInAt, "a repeat answers the check-in");
      });
      assert.equal(repeat, true, "checking in again");
      const secondScan = await cachedAfter(async () => {
        const input = { projectId, ticketCode: attendee.ticketCode };
        const scanned = await mutate(scan, { input });
        assert.equal(scanned.checkInByTicketCode.outcome, "ALREADY_CHECKED_IN");
      });
      assert.equal(secondScan, true, "a second scan of the badge");
      assert.equal(await cachedAfter(() => mutate(undo, { id })), false, "the undo that takes it back");
    });
  });
}
