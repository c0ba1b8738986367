import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createAttendee,
  createSession,
  createTicketType,
  userActor,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Resolvers hand GraphQL inputs to the services as they are, explicit nulls included. A null for a
// field an update cannot clear (a name, a time, a price) must come back as a userError on that
// field with nothing changed; a null for a field that can be cleared clears it.
for (const engine of testEngines()) {
  describe(`explicit nulls in update inputs (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    async function organizerApp() {
      return createApp(server.services, {
        permissions: ["agenda:read", "agenda:write", "tickets:read", "tickets:write", "attendees:write"],
      });
    }

    /** Runs one update mutation and returns its payload. */
    async function update(token: string, mutation: string, input: Record<string, unknown>) {
      const query = `mutation($input: ${mutation[0]?.toUpperCase()}${mutation.slice(1)}Input!) {
        ${mutation}(input: $input) { userErrors { field message } }
      }`;
      const { status, body } = await gql(server.url, query, { token, variables: { input } });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      return body.data[mutation] as { userErrors: { field: string[]; message: string }[] };
    }

    function assertRefused(payload: { userErrors: { field: string[] }[] }, fields: string[]) {
      assert.deepEqual(payload.userErrors.map((e) => e.field.join(".")).sort(), [...fields].sort());
    }

    test("refuses null names of tracks, rooms and speakers and clears a track's color", async () => {
      const { token, projectId, ownerId } = await organizerApp();
      const owner = userActor(ownerId ?? "");
      const agenda = server.services.agenda;
      const track = await agenda.createTrack(owner, { projectId, name: "Web", color: "#112233" });
      const room = await agenda.createRoom(owner, { projectId, name: "Hall", capacity: 50 });
      const speaker = await agenda.createSpeaker(owner, { projectId, name: "Ada" });

      assertRefused(await update(token, "updateTrack", { id: globalId("Track", track.id), name: null }), [
        "name",
      ]);
      assertRefused(await update(token, "updateRoom", { id: globalId("Room", room.id), name: null }), [
        "name",
      ]);
      assertRefused(
        await update(token, "updateSpeaker", { id: globalId("Speaker", speaker.id), name: null }),
        ["name"],
      );
      assertRefused(await update(token, "updateTrack", { id: globalId("Track", track.id), color: null }), []);

      assert.deepEqual((await agenda.findTrack(owner, track.id))?.item, { ...track, color: null });
      assert.equal((await agenda.findRoom(owner, room.id))?.item.name, "Hall");
      assert.equal((await agenda.findSpeaker(owner, speaker.id))?.item.name, "Ada");
    });

    test("refuses a null title, start, end or status of a session and clears its capacity", async () => {
      const { token, projectId, ownerId } = await organizerApp();
      const owner = userActor(ownerId ?? "");
      const session = await createSession(server.services, owner, projectId, { capacity: 30 });
      const id = globalId("Session", session.id);
      const refused = await update(token, "updateSession", {
        id,
        title: null,
        startsAt: null,
        endsAt: null,
        status: null,
      });
      assertRefused(refused, ["title", "startsAt", "endsAt", "status"]);
      assertRefused(await update(token, "updateSession", { id, capacity: null }), []);
      const stored = (await server.services.agenda.findSession(owner, session.id))?.item;
      assert.equal(stored?.title, session.title);
      assert.equal(stored?.startsAt, session.startsAt);
      assert.equal(stored?.capacity, null);
    });

    test("refuses a null name, price, currency or quantity of a ticket type and a null attendee name or email", async () => {
      const { token, projectId, ownerId } = await organizerApp();
      const owner = userActor(ownerId ?? "");
      const ticketType = await createTicketType(server.services, owner, projectId);
      const attendee = await createAttendee(server.services, owner, projectId, ticketType.id);
      const refused = await update(token, "updateTicketType", {
        id: globalId("TicketType", ticketType.id),
        name: null,
        priceMinor: null,
        currency: null,
        quantity: null,
      });
      assertRefused(refused, ["name", "priceMinor", "currency", "quantity"]);
      const attendeeRefused = await update(token, "updateAttendee", {
        id: globalId("Attendee", attendee.id),
        name: null,
        email: null,
      });
      assertRefused(attendeeRefused, ["name", "email"]);
      const stored = (await server.services.tickets.findTicketType(owner, ticketType.id))?.item;
      assert.equal(stored?.priceMinor, ticketType.priceMinor);
      assert.equal(
        (await server.services.attendees.findAttendee(owner, attendee.id))?.item.email,
        attendee.email,
      );
    });
  });
}
