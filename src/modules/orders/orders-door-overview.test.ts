import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { publicActor } from "../access/actor.js";

for (const engine of testEngines()) {
  describe(`orders at the door and on the Overview (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    async function event() {
      const { project, owner } = await createPublishedProject(ctx.services);
      await ctx.services.orders.updateSettings(owner, project.id, {
        holdMinutes: 60,
        bankDetails: "IBAN DE02",
      });
      const transfer = await createTicketType(ctx.services, owner, project.id, {
        name: "Pass",
        priceMinor: 24_900,
        paymentMode: "BANK_TRANSFER",
      });
      const door = await createTicketType(ctx.services, owner, project.id, {
        name: "Door",
        priceMinor: 1_000,
        paymentMode: "AT_DOOR",
      });
      const place = (ticketTypeId: string) =>
        ctx.services.orders.placeOrder(publicActor, {
          projectId: project.id,
          buyerName: "Bea Buyer",
          buyerEmail: uniqueEmail("buyer"),
          tickets: [{ ticketTypeId, name: "Guest", email: uniqueEmail("guest") }],
        });
      return { project, owner, transfer, door, place };
    }

    test("does not admit a ticket of an unpaid bank-transfer order, by code or by name, until it is paid", async () => {
      const { project, owner, transfer, place } = await event();
      const placed = await place(transfer.id);
      const [ticket] = placed.tickets;
      assert.ok(ticket);
      const scan = () =>
        ctx.services.checkins.checkInByCode(owner, { projectId: project.id, ticketCode: ticket.ticketCode });
      const refused = await scan();
      assert.equal(refused.outcome, "UNPAID");
      assert.equal(refused.checkIn, null);
      await assert.rejects(
        ctx.services.checkins.checkIn(owner, { attendeeId: ticket.id }),
        (error: unknown) => {
          assert.match(
            String(
              (error as { details?: unknown }).details &&
                JSON.stringify((error as { details: unknown }).details),
            ),
            /not paid yet/,
          );
          return true;
        },
      );
      assert.equal(
        (await ctx.services.checkins.activeByAttendeeIds([ticket.id])).size,
        0,
        "nothing was recorded",
      );
      await ctx.services.orders.markOrderPaid(owner, { id: placed.order.id });
      assert.equal((await scan()).outcome, "CHECKED_IN");
    });

    test("admits a ticket paid at the door: its order is pending by design", async () => {
      const { project, owner, door, place } = await event();
      const placed = await place(door.id);
      assert.equal(placed.order.state, "PENDING");
      const [ticket] = placed.tickets;
      assert.ok(ticket);
      const result = await ctx.services.checkins.checkInByCode(owner, {
        projectId: project.id,
        ticketCode: ticket.ticketCode,
      });
      assert.equal(result.outcome, "CHECKED_IN");
    });

    test("the Overview counts paid and pending orders apart, and a bank transfer is paid only when its order is", async () => {
      const { project, owner, transfer, place } = await event();
      const paid = await place(transfer.id);
      await place(transfer.id);
      await ctx.services.orders.markOrderPaid(owner, { id: paid.order.id });
      const access = await ctx.services.access.require(owner, project.id);
      const overview = await ctx.services.overview.overview(access, {
        timezone: "Europe/Berlin",
        startsAt: null,
        endsAt: null,
      });
      assert.deepEqual(overview.orders, {
        paid: 1,
        paidAmounts: [{ currency: "EUR", minor: 24_900 }],
        pending: 1,
        pendingAmounts: [{ currency: "EUR", minor: 24_900 }],
      });
      assert.deepEqual(overview.paid, [{ currency: "EUR", minor: 24_900 }]);
      assert.deepEqual(overview.due, [{ currency: "EUR", minor: 24_900 }]);
    });
  });
}
