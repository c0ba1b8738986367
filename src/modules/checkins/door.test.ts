import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createApp,
  createAttendee,
  createProject,
  createTicketType,
  createUser,
  testPassword,
  userActor,
} from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { HttpClient } from "../../../test/helpers/http-client.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";

const mutation = `mutation($input: CheckInByTicketCodeInput!) {
  checkInByTicketCode(input: $input) { outcome attendee { id } checkIn { checkedInAt } userErrors { field message } }
}`;

for (const engine of testEngines()) {
  describe(`check-in by ticket code (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine);
    });
    after(() => server.close());

    async function scene() {
      const door = await createApp(server.services, { permissions: ["checkins:write"] });
      const owner = userActor(door.ownerId ?? "");
      const ticketType = await createTicketType(server.services, owner, door.projectId, { quantity: 2_000 });
      const attendee = await createAttendee(server.services, owner, door.projectId, ticketType.id);
      return { door, owner, ticketType, attendee };
    }

    test("refuses callers without checkins:write in the project before looking at the code", async () => {
      const { door, attendee } = await scene();
      const reader = appActor(door.projectId, ["attendees:read"]);
      const foreign = appActor((await createProject(server.services)).project.id, ["checkins:write"]);
      const stranger = userActor((await createUser(server.services)).id);
      const input = { projectId: door.projectId, ticketCode: attendee.ticketCode };
      await assert.rejects(server.services.checkins.checkInByCode(reader, input), { code: "FORBIDDEN" });
      for (const actor of [foreign, stranger]) {
        await assert.rejects(server.services.checkins.checkInByCode(actor, input), { code: "NOT_FOUND" });
      }
      assert.equal((await server.services.checkins.activeByAttendeeIds([attendee.id])).size, 0);
    });

    test("answers each outcome through the API; a second scan is ALREADY_CHECKED_IN with the first time", async () => {
      const { door, owner, ticketType, attendee } = await scene();
      const call = (ticketCode: string) =>
        gql(server.url, mutation, {
          token: door.token,
          variables: { input: { projectId: door.projectId, ticketCode } },
        });
      const first = (await call(attendee.ticketCode.toLowerCase())).body.data.checkInByTicketCode;
      assert.equal(first.outcome, "CHECKED_IN");
      const again = (await call(attendee.ticketCode)).body.data.checkInByTicketCode;
      assert.equal(again.outcome, "ALREADY_CHECKED_IN");
      assert.equal(again.checkIn.checkedInAt, first.checkIn.checkedInAt);

      const cancelled = await createAttendee(server.services, owner, door.projectId, ticketType.id);
      await server.services.attendees.cancelAttendee(owner, { id: cancelled.id });
      assert.equal((await call(cancelled.ticketCode)).body.data.checkInByTicketCode.outcome, "CANCELLED");

      const other = await createProject(server.services, { ownerId: door.ownerId });
      const otherType = await createTicketType(server.services, owner, other.project.id);
      const elsewhere = await createAttendee(server.services, owner, other.project.id, otherType.id);
      const foreign = (await call(elsewhere.ticketCode)).body.data.checkInByTicketCode;
      assert.deepEqual(foreign, { outcome: "OTHER_EVENT", attendee: null, checkIn: null, userErrors: [] });
      assert.equal((await server.services.checkins.activeByAttendeeIds([elsewhere.id])).size, 0);

      for (const garbage of ["", "x", "0000-0000-0000-0000", "é".repeat(60)]) {
        assert.equal((await call(garbage)).body.data.checkInByTicketCode.outcome, "UNKNOWN_CODE", garbage);
      }
      const tooLong = (await call("A".repeat(201))).body.data.checkInByTicketCode;
      assert.equal(tooLong.outcome, null);
      assert.deepEqual(tooLong.userErrors[0].field, ["ticketCode"]);
    });

    test("200 concurrent scans of one ticket make one check-in: one CHECKED_IN, the rest ALREADY_CHECKED_IN", async () => {
      const { door, owner, attendee } = await scene();
      // A scan the pool could not take in time answers BUSY (503, retry shortly), as it does when a
      // loaded machine runs 200 at once; the person at the door scans again, and so does this test.
      const scan = async (): Promise<{ outcome: string }> => {
        for (;;) {
          try {
            return await server.services.checkins.checkInByCode(owner, {
              projectId: door.projectId,
              ticketCode: attendee.ticketCode,
            });
          } catch (error) {
            if ((error as { details?: { reason?: string } }).details?.reason !== "BUSY") throw error;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      };
      const outcomes = await Promise.all(Array.from({ length: 200 }, scan));
      assert.equal(outcomes.filter((o) => o.outcome === "CHECKED_IN").length, 1);
      assert.equal(outcomes.filter((o) => o.outcome === "ALREADY_CHECKED_IN").length, 199);
      const history = await server.services.checkins.historyByAttendeeIds([attendee.id]);
      assert.equal(history.get(attendee.id)?.length, 1);
    });

    test("counts checked in and expected per ticket type, leaving out cancelled and undone", async () => {
      const { door, owner, ticketType, attendee } = await scene();
      const second = await createAttendee(server.services, owner, door.projectId, ticketType.id);
      const gone = await createAttendee(server.services, owner, door.projectId, ticketType.id);
      await server.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      await server.services.checkins.checkIn(owner, { attendeeId: second.id });
      await server.services.checkins.undoCheckIn(owner, { attendeeId: second.id });
      await server.services.checkins.checkIn(owner, { attendeeId: gone.id });
      await server.services.attendees.cancelAttendee(owner, { id: gone.id });
      assert.deepEqual(await server.services.checkins.doorCounts(owner, door.projectId), [
        { ticketTypeId: ticketType.id, expected: 2, checkedIn: 1 },
      ]);
    });

    test("the dashboard's scan endpoint refuses a post without the CSRF token and answers JSON to the page", async () => {
      const user = await createUser(server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(server.services, { ownerId: user.id });
      const ticketType = await createTicketType(server.services, owner, project.id);
      const attendee = await createAttendee(server.services, owner, project.id, ticketType.id);
      const client = new HttpClient(server.url);
      await client.get("/login");
      await client.post("/login", { email: user.email, password: testPassword });
      await client.get(`/b/${project.id}/check-in`);
      const path = `/b/${project.id}/check-in/scan`;
      const forged = await client.post(path, { _csrf: null, code: attendee.ticketCode });
      assert.equal(forged.status, 403);
      assert.equal((await server.services.checkins.activeByAttendeeIds([attendee.id])).size, 0);
      const answer = await client.post(path, { code: attendee.ticketCode }, { accept: "application/json" });
      assert.equal(answer.status, 200);
      const body = JSON.parse(answer.body);
      assert.equal(body.outcome, "CHECKED_IN");
      assert.equal(body.counts.checkedIn, 1);
      const plain = await client.post(path, { code: attendee.ticketCode });
      assert.equal(plain.status, 303, "without script: a redirect back with the answer as a flash");
    });
  });
}
