import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import {
  createAttendee,
  createProject,
  createTicketType,
  createUser,
  userActor,
} from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

// One organizer owns two projects. A row id of project B posted under project A's address must be
// refused like a missing row, even though the organizer may change that row under B's own address:
// the address says which event a form acts on, so a pasted or forged id cannot reach across events.
for (const engine of testEngines()) {
  describe(`dashboard forms refuse a row of another project (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    async function organizerWithTwoProjects() {
      const owner = await createUser(server.services);
      const actor = userActor(owner.id);
      const mine = (await createProject(server.services, { ownerId: owner.id })).project;
      const theirs = (await createProject(server.services, { ownerId: owner.id })).project;
      const client = await logIn(server.url, owner.email);
      // Any page of project A gives the session's CSRF token for the posts below.
      assert.equal((await client.get(`/b/${mine.id}`)).status, 200);
      return { actor, mine, theirs, client };
    }

    test("refuses deleting a track of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const track = await server.services.agenda.createTrack(actor, { projectId: theirs.id, name: "Theirs" });
      const response = await client.post(`/b/${mine.id}/agenda/tracks/${track.id}/delete`, {});
      assert.equal(response.status, 404);
      assert.equal((await server.services.agenda.findTrack(actor, track.id))?.item.name, "Theirs");
    });

    test("refuses deleting a room of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const room = await server.services.agenda.createRoom(actor, { projectId: theirs.id, name: "Hall B" });
      const response = await client.post(`/b/${mine.id}/agenda/rooms/${room.id}/delete`, {});
      assert.equal(response.status, 404);
      assert.equal((await server.services.agenda.findRoom(actor, room.id))?.item.name, "Hall B");
    });

    test("refuses deleting a ticket type of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const ticketType = await createTicketType(server.services, actor, theirs.id);
      const response = await client.post(`/b/${mine.id}/tickets/${ticketType.id}/delete`, {});
      assert.equal(response.status, 404);
      assert.ok(await server.services.tickets.findTicketType(actor, ticketType.id));
    });

    test("refuses cancelling an attendee of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const ticketType = await createTicketType(server.services, actor, theirs.id);
      const attendee = await createAttendee(server.services, actor, theirs.id, ticketType.id);
      const response = await client.post(`/b/${mine.id}/attendees/${attendee.id}/cancel`, {});
      assert.equal(response.status, 404);
      const stored = await server.services.attendees.findAttendee(actor, attendee.id);
      assert.equal(stored?.item.status, "REGISTERED");
    });

    test("refuses checking in an attendee of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const ticketType = await createTicketType(server.services, actor, theirs.id);
      const attendee = await createAttendee(server.services, actor, theirs.id, ticketType.id);
      const response = await client.post(`/b/${mine.id}/check-in/${attendee.id}?q=x`, {});
      assert.equal(response.status, 404);
      const active = await server.services.checkins.activeByAttendeeIds([attendee.id]);
      assert.equal(active.has(attendee.id), false);
    });

    test("refuses undoing the check-in of an attendee of another project under this project's address", async () => {
      const { actor, mine, theirs, client } = await organizerWithTwoProjects();
      const ticketType = await createTicketType(server.services, actor, theirs.id);
      const attendee = await createAttendee(server.services, actor, theirs.id, ticketType.id);
      await server.services.checkins.checkIn(actor, { attendeeId: attendee.id });
      const response = await client.post(`/b/${mine.id}/check-in/${attendee.id}/undo?q=x`, {});
      assert.equal(response.status, 404);
      const active = await server.services.checkins.activeByAttendeeIds([attendee.id]);
      assert.equal(active.has(attendee.id), true);
    });

    test("still deletes, cancels and checks in rows of this project (the same posts succeed at home)", async () => {
      const { actor, theirs, client } = await organizerWithTwoProjects();
      await client.get(`/b/${theirs.id}`);
      const track = await server.services.agenda.createTrack(actor, { projectId: theirs.id, name: "Home" });
      const ticketType = await createTicketType(server.services, actor, theirs.id);
      const attendee = await createAttendee(server.services, actor, theirs.id, ticketType.id);
      assert.equal((await client.post(`/b/${theirs.id}/check-in/${attendee.id}?q=x`, {})).status, 303);
      assert.equal((await client.post(`/b/${theirs.id}/check-in/${attendee.id}/undo?q=x`, {})).status, 303);
      assert.equal((await client.post(`/b/${theirs.id}/attendees/${attendee.id}/cancel`, {})).status, 303);
      assert.equal((await client.post(`/b/${theirs.id}/agenda/tracks/${track.id}/delete`, {})).status, 303);
      assert.equal(await server.services.agenda.findTrack(actor, track.id), undefined);
    });
  });
}
