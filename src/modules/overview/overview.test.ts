import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createAttendee,
  createProject,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`project overview figures (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("counts registrations against capacity, revenue per currency, check-ins and both charts", async () => {
      const now = Date.now();
      const { project, ownerId } = await createProject(ctx.services, {
        input: {
          timezone: "Asia/Tokyo",
          startsAt: new Date(now - 3_600_000).toISOString(),
          endsAt: new Date(now + 3_600_000).toISOString(),
        },
      });
      const owner = userActor(ownerId);
      const eur = await createTicketType(ctx.services, owner, project.id, {
        name: "Day",
        priceMinor: 5000,
        quantity: 10,
      });
      const usd = await createTicketType(ctx.services, owner, project.id, {
        name: "Closed",
        priceMinor: 12000,
        currency: "USD",
        quantity: 2,
        salesEndAt: new Date(now - 60_000).toISOString(),
      });
      const a = await createAttendee(ctx.services, owner, project.id, eur.id);
      await createAttendee(ctx.services, owner, project.id, eur.id);
      const c = await createAttendee(ctx.services, owner, project.id, usd.id);
      const gone = await createAttendee(ctx.services, owner, project.id, eur.id);
      await ctx.services.attendees.cancelAttendee(owner, { id: gone.id });
      await ctx.services.checkins.checkIn(owner, { attendeeId: a.id });
      await ctx.services.checkins.checkIn(owner, { attendeeId: c.id });

      const access = await ctx.services.access.require(owner, project.id);
      const o = await ctx.services.overview.overview(access, project);
      assert.deepEqual(
        o.ticketTypes.map((t) => [t.name, t.sold, t.quantity, t.onSaleNow]),
        [
          ["Day", 2, 10, true],
          ["Closed", 1, 2, false],
        ],
      );
      assert.deepEqual([o.registered, o.capacity, o.onSaleNow, o.checkedIn], [3, 12, 1, 2]);
      assert.deepEqual(o.revenue, [
        { currency: "EUR", minor: 10000 },
        { currency: "USD", minor: 12000 },
      ]);
      assert.equal(o.registrationsOverTime.at(-1)?.value, 4, "every registration made, cancelled ones too");
      assert.equal(
        o.checkInDays.flatMap((d) => d.points).reduce((s, p) => s + p.value, 0),
        2,
      );
      assert.match(o.checkInDays[0]?.points[0]?.label ?? "", /^\d\d:(00|15|30|45)$/);

      await assert.rejects(
        ctx.services.overview.overview({ ...access, permissions: new Set(["attendees:read"]) }, project),
        { code: "FORBIDDEN" },
      );
    });

    // Issue 38: "Revenue €7,719.00" counted unpaid invoice and at-the-door registrations as money in.
    test("tells what is paid apart from what is still to be paid at the door or by invoice", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const sold = await createTicketType(ctx.services, owner, project.id, {
        name: "Sold",
        priceMinor: 10000,
      });
      const door = await createTicketType(ctx.services, owner, project.id, {
        name: "Door",
        priceMinor: 5000,
        paymentMode: "AT_DOOR",
      });
      const invoice = await createTicketType(ctx.services, owner, project.id, {
        name: "Invoice",
        priceMinor: 3000,
        paymentMode: "INVOICE",
      });
      for (let i = 0; i < 2; i++) await createAttendee(ctx.services, owner, project.id, sold.id);
      const arrived = await createAttendee(ctx.services, owner, project.id, door.id);
      for (let i = 0; i < 2; i++) await createAttendee(ctx.services, owner, project.id, door.id);
      for (let i = 0; i < 2; i++) await createAttendee(ctx.services, owner, project.id, invoice.id);
      await ctx.services.checkins.checkIn(owner, { attendeeId: arrived.id });
      const undone = await createAttendee(ctx.services, owner, project.id, door.id);
      await ctx.services.checkins.checkIn(owner, { attendeeId: undone.id });
      await ctx.services.checkins.undoCheckIn(owner, { attendeeId: undone.id });

      const access = await ctx.services.access.require(owner, project.id);
      const o = await ctx.services.overview.overview(access, project);
      assert.deepEqual(o.revenue, [{ currency: "EUR", minor: 20000 + 4 * 5000 + 6000 }]);
      assert.deepEqual(o.paid, [{ currency: "EUR", minor: 20000 + 5000 }]);
      assert.deepEqual(o.due, [{ currency: "EUR", minor: 3 * 5000 + 6000 }]);
      assert.deepEqual([o.dueAtDoor, o.dueByInvoice], [3, 2]);
    });

    test("does not show as on sale a ticket type whose free seats are owed to people waiting", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const type = await createTicketType(ctx.services, owner, project.id, {
        name: "Owed",
        priceMinor: 0,
        quantity: 1,
      });
      const holder = await createAttendee(ctx.services, owner, project.id, type.id);
      const email = uniqueEmail("wait");
      await ctx.services.waitingList.join(
        { projectId: project.id, ticketTypeId: type.id, name: "Wanda Waiting", email },
        "10.38.0.1",
      );
      // The seat frees while someone waits: it is theirs (offered or about to be), not a buyer's.
      await ctx.services.attendees.cancelAttendee(owner, { id: holder.id });
      const access = await ctx.services.access.require(owner, project.id);
      const o = await ctx.services.overview.overview(access, project);
      assert.deepEqual(
        o.ticketTypes.map((t) => [t.name, t.sold, t.quantity, t.onSaleNow]),
        [["Owed", 0, 1, false]],
      );
      assert.equal(o.onSaleNow, 0);
      // What the event page tells buyers agrees: no seat left.
      const content = await ctx.services.eventPage.content(access);
      assert.deepEqual(
        content.tickets.map((t) => [t.name, t.remaining]),
        [["Owed", 0]],
      );
    });
  });
}
