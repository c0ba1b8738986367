import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createSession } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import {
  doorProject,
  listening,
  refusedStatus,
  rolledBackEvent,
  subscribe,
} from "../helpers/subscriptions.js";
import { serverPerSuite } from "../helpers/test-server.js";

const checkIns = `subscription ($p: ID!) { checkInChanged(projectId: $p) { change attendee { name checkedIn } } }`;
const attendees = `subscription ($p: ID!) { attendeeChanged(projectId: $p) { change attendee { name status } } }`;
const sessions = `subscription ($p: ID!) { sessionChanged(projectId: $p) { change session { title } } }`;
const counts = `subscription ($p: ID!) { doorCounts(projectId: $p) { expected checkedIn } }`;

for (const engine of testEngines()) {
  describe(`subscriptions over SSE (${engine.name})`, () => {
    const server = serverPerSuite(engine, { STREAMS_PER_APP: "3" });

    /** Waits until the server has forgotten every stream its clients closed. */
    async function closed() {
      const deadline = Date.now() + 5_000;
      while (server.services.live.size > 0) {
        assert.ok(Date.now() < deadline, "closed streams were not forgotten");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    test("refuses a caller without a token, and one without the permission, before any event", async () => {
      const door = await doorProject(server, ["agenda:read"]);
      const anonymous = subscribe(server.url, undefined, checkIns, { p: door.projectId });
      assert.equal(refusedStatus((await anonymous.ended).error), 401);
      const bad = subscribe(server.url, "evg_nope", checkIns, { p: door.projectId });
      assert.equal(refusedStatus((await bad.ended).error), 401);
      const lacking = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      const refused = await lacking.nth(1);
      assert.equal(refused.errors?.[0]?.extensions?.code, "FORBIDDEN");
      assert.equal((await lacking.ended).error, undefined);
      // A project the app cannot see reads as missing, exactly as a query's does.
      const other = await doorProject(server, ["attendees:read"]);
      const elsewhere = subscribe(server.url, door.token, checkIns, { p: other.projectId });
      assert.equal((await elsewhere.nth(1)).errors?.[0]?.extensions?.code, "NOT_FOUND");
      assert.equal(server.services.live.size, 0);
    });

    test("serves subscriptions only on the stream path, and nothing else there", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const onQueries = await gql(server.url, checkIns, {
        token: door.token,
        variables: { p: door.projectId },
      });
      assert.equal(onQueries.status, 400);
      assert.match(onQueries.body.errors[0].message, /\/api\/graphql\/stream/);
      const query = subscribe(server.url, door.token, "{ viewer { name } }");
      assert.equal(refusedStatus((await query.ended).error), 400);
      const garbage = subscribe(server.url, door.token, "subscription { nope(");
      assert.equal(refusedStatus((await garbage.ended).error), 400);
      const badVariables = subscribe(server.url, door.token, checkIns, { p: { $ne: 1 } });
      assert.equal(refusedStatus((await badVariables.ended).error), 400);
      const injected = subscribe(server.url, door.token, checkIns, { p: "' or 1=1 --" });
      assert.equal((await injected.nth(1)).errors?.[0]?.extensions?.code, "NOT_FOUND");
      const notJson = await fetch(`${server.url}/api/graphql/stream`, {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          "content-type": "text/plain",
          authorization: `Bearer ${door.token}`,
        },
        body: "subscription { x }",
      });
      assert.equal(notJson.status, 415);
      const noStream = await fetch(`${server.url}/api/graphql/stream`, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/json",
          authorization: `Bearer ${door.token}`,
        },
        body: JSON.stringify({ query: checkIns, variables: { p: door.projectId } }),
      });
      assert.equal(noStream.status, 406);
      assert.equal(server.services.live.size, 0);
    });

    test("delivers a check-in and its undoing after each commit, read back with the caller's access", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const stream = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      await listening(server.services, door.projectId);
      await server.services.checkins.checkIn(door.owner, { attendeeId: door.attendee.id });
      // A second check-in changes nothing, so it is no event.
      await server.services.checkins.checkIn(door.owner, { attendeeId: door.attendee.id });
      // The attendee is read when the event is sent: wait for it before taking the check-in back.
      assert.deepEqual((await stream.nth(1)).data, {
        checkInChanged: { change: "CHECKED_IN", attendee: { name: "Ada", checkedIn: true } },
      });
      await server.services.checkins.undoCheckIn(door.owner, { attendeeId: door.attendee.id });
      assert.deepEqual((await stream.nth(2)).data, {
        checkInChanged: { change: "UNDONE", attendee: { name: "Ada", checkedIn: false } },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(stream.results.length, 2);
      stream.dispose();
    });

    test("reads an event once for all the streams of one app and operation", async () => {
      /** Reads of attendees and check-ins from a check-in's commit until `count` streams have its result. */
      async function statementsFor(count: number): Promise<number> {
        const door = await doorProject(server, ["attendees:read"]);
        const open = Array.from({ length: count }, () =>
          subscribe(server.url, door.token, checkIns, { p: door.projectId }),
        );
        await listening(server.services, door.projectId, count);
        const { checkins } = server.services;
        let committed = 0;
        const off = server.services.changes.subscribe(() => {
          committed = server.statements.length;
        });
        await checkins.checkIn(door.owner, { attendeeId: door.attendee.id });
        off();
        for (const stream of open) await stream.nth(1);
        // What the event's execution reads (background work, a fence, may add other statements).
        const read = server.statements
          .slice(committed)
          .filter((sql) => /from "(attendees|check_ins)"/.test(sql)).length;
        for (const stream of open) stream.dispose();
        await closed();
        return read;
      }
      const one = await statementsFor(1);
      assert.ok(one > 0, "the event's reads were not seen");
      assert.equal(await statementsFor(3), one);
    });

    test("never delivers the event of a write that rolled back", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const stream = subscribe(server.url, door.token, attendees, { p: door.projectId });
      await listening(server.services, door.projectId);
      await rolledBackEvent(server.services, door, "attendee.updated");
      await server.services.attendees.cancelAttendee(door.owner, { id: door.attendee.id });
      assert.deepEqual((await stream.nth(1)).data, {
        attendeeChanged: { change: "CANCELLED", attendee: { name: "Ada", status: "CANCELLED" } },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(stream.results.length, 1);
      stream.dispose();
    });

    test("follows the agenda's sessions, drafts included, with agenda:read", async () => {
      const without = await doorProject(server, ["attendees:read"]);
      const refused = subscribe(server.url, without.token, sessions, { p: without.projectId });
      assert.equal((await refused.nth(1)).errors?.[0]?.extensions?.code, "FORBIDDEN");
      const door = await doorProject(server, ["agenda:read"]);
      const stream = subscribe(server.url, door.token, sessions, { p: door.projectId });
      await listening(server.services, door.projectId);
      const session = await createSession(server.services, door.owner, door.projectId, { title: "Keynote" });
      assert.deepEqual((await stream.nth(1)).data, {
        sessionChanged: { change: "CREATED", session: { title: "Keynote" } },
      });
      await server.services.agenda.updateSession(door.owner, { id: session.id, title: "Opening keynote" });
      assert.deepEqual((await stream.nth(2)).data, {
        sessionChanged: { change: "UPDATED", session: { title: "Opening keynote" } },
      });
      await server.services.agenda.deleteSession(door.owner, { id: session.id });
      assert.deepEqual((await stream.nth(3)).data, { sessionChanged: { change: "DELETED", session: null } });
      stream.dispose();
    });

    test("sends the door counts at once and after each change", async () => {
      const door = await doorProject(server, ["checkins:write"]);
      const stream = subscribe(server.url, door.token, counts, { p: door.projectId });
      assert.deepEqual((await stream.nth(1)).data, { doorCounts: [{ expected: 1, checkedIn: 0 }] });
      await server.services.checkins.checkIn(door.owner, { attendeeId: door.attendee.id });
      assert.deepEqual((await stream.nth(2)).data, { doorCounts: [{ expected: 1, checkedIn: 1 }] });
      stream.dispose();
    });

    test("ends a stream within a second of its token's rotation, saying why", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const stream = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      await listening(server.services, door.projectId);
      await server.services.apps.rotateToken(door.owner, { id: door.app.id });
      const rotated = Date.now();
      const { at } = await stream.ended;
      assert.ok(at - rotated < 1_000, `ended ${at - rotated} ms after the rotation`);
      assert.equal(
        stream.results.at(-1)?.errors?.[0]?.extensions?.code,
        "UNAUTHENTICATED",
        JSON.stringify(stream.results),
      );
      assert.equal(server.services.live.listening(door.projectId), 0);
    });

    test("ends a stream when its app loses the permission the field needs", async () => {
      const door = await doorProject(server, ["attendees:read", "agenda:read"]);
      const stream = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      await listening(server.services, door.projectId);
      await server.services.apps.updateApp(door.owner, { id: door.app.id, permissions: ["agenda:read"] });
      const narrowed = Date.now();
      const { at } = await stream.ended;
      assert.ok(at - narrowed < 1_000, `ended ${at - narrowed} ms after the narrowing`);
      assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "FORBIDDEN");
    });

    test("refuses a stream past the app's limit of open streams", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const open = [1, 2, 3].map(() => subscribe(server.url, door.token, checkIns, { p: door.projectId }));
      await listening(server.services, door.projectId, 3);
      const fourth = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      assert.equal(refusedStatus((await fourth.ended).error), 429);
      for (const stream of open) stream.dispose();
      await closed();
    });

    test("cuts a subscriber that falls behind instead of buffering for it", async () => {
      const door = await doorProject(server, ["attendees:read"]);
      const stream = subscribe(server.url, door.token, checkIns, { p: door.projectId });
      await listening(server.services, door.projectId);
      // Faster than any reader: every event is read back from the database before it is sent.
      for (let i = 0; i < 1_000; i++) {
        server.services.live.publish({
          projectId: door.projectId,
          type: "checkin.created",
          objectId: door.attendee.id,
        });
      }
      await stream.ended;
      assert.equal(stream.results.at(-1)?.errors?.[0]?.extensions?.code, "SLOW_SUBSCRIBER");
      assert.ok(stream.results.length < 1_000);
    });
  });
}
