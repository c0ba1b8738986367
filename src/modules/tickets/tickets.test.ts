import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createAttendee,
  createProject,
  createPublishedProject,
  createTicketType,
  createUser,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";

const firstPage = resolvePageArgs({ first: 100 });
const hourMs = 3_600_000;
const inHours = (hours: number) => new Date(Date.now() + hours * hourMs).toISOString();

for (const engine of testEngines()) {
  describe(`tickets (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects negative or fractional prices, unknown currencies, bad quantities and a backwards sales window", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      await rejectsWithFieldErrors(
        createTicketType(ctx.services, owner, project.id, {
          name: "",
          priceMinor: 12.5,
          currency: "EURO",
          quantity: -1,
        }),
        ["name", "priceMinor", "currency", "quantity"],
      );
      await rejectsWithFieldErrors(createTicketType(ctx.services, owner, project.id, { currency: "XYZ" }), [
        "currency",
      ]);
      await rejectsWithFieldErrors(createTicketType(ctx.services, owner, project.id, { priceMinor: -100 }), [
        "priceMinor",
      ]);
      await rejectsWithFieldErrors(
        createTicketType(ctx.services, owner, project.id, {
          salesStartAt: inHours(2),
          salesEndAt: inHours(1),
        }),
        ["salesEndAt"],
      );
      const lower = await createTicketType(ctx.services, owner, project.id, {
        currency: "usd",
        priceMinor: 0,
      });
      assert.deepEqual([lower.currency, lower.priceMinor], ["USD", 0]);
      await rejectsWithFieldErrors(
        ctx.services.tickets.updateTicketType(owner, {
          id: lower.id,
          salesStartAt: inHours(5),
          salesEndAt: inHours(4),
        }),
        ["salesEndAt"],
      );
    });

    test("keeps the quantity at or above the tickets sold, saying how many were sold", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id, { quantity: 5 });
      for (let i = 0; i < 3; i++) await createAttendee(ctx.services, owner, project.id, ticketType.id);
      await assert.rejects(ctx.services.tickets.updateTicketType(owner, { id: ticketType.id, quantity: 2 }), {
        code: "BAD_USER_INPUT",
        details: {
          fieldErrors: [
            { field: ["quantity"], message: "must be at least 3, the number of tickets already sold" },
          ],
        },
      });
      const updated = await ctx.services.tickets.updateTicketType(owner, {
        id: ticketType.id,
        quantity: 3,
        name: "VIP",
      });
      assert.deepEqual([updated.quantity, updated.name, updated.priceMinor], [3, "VIP", 9900]);
    });

    test("refuses to delete a ticket type with registrations, cancelled ones included", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id);
      const attendee = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
      await assert.rejects(ctx.services.tickets.deleteTicketType(owner, { id: ticketType.id }), {
        code: "CONFLICT",
        message: /1 registration/,
      });
      const unused = await createTicketType(ctx.services, owner, project.id);
      assert.equal((await ctx.services.tickets.deleteTicketType(owner, { id: unused.id })).id, unused.id);
      assert.equal(await ctx.services.tickets.findTicketType(owner, unused.id), undefined);
    });

    test("answers NOT_FOUND for another project's ticket types and FORBIDDEN without tickets:write", async () => {
      // A draft project: an app of another project sees a published one as the public does.
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const ticketType = await createTicketType(ctx.services, owner, project.id);
      const stranger = userActor((await createUser(ctx.services)).id);
      const foreignApp = appActor((await createProject(ctx.services)).project.id, [
        "tickets:write",
        "tickets:read",
      ]);
      for (const actor of [stranger, foreignApp]) {
        await assert.rejects(ctx.services.tickets.updateTicketType(actor, { id: ticketType.id, name: "X" }), {
          code: "NOT_FOUND",
          message: "Ticket type not found",
        });
        await assert.rejects(ctx.services.tickets.deleteTicketType(actor, { id: ticketType.id }), {
          code: "NOT_FOUND",
        });
        await assert.rejects(createTicketType(ctx.services, actor, project.id), { code: "NOT_FOUND" });
        assert.equal(await ctx.services.tickets.findTicketType(actor, ticketType.id), undefined);
      }
      const reader = appActor(project.id, ["tickets:read"]);
      await assert.rejects(ctx.services.tickets.updateTicketType(reader, { id: ticketType.id, name: "X" }), {
        code: "FORBIDDEN",
        details: { requiredPermission: "tickets:write" },
      });
      await assert.rejects(createTicketType(ctx.services, reader, project.id), {
        code: "FORBIDDEN",
        details: { requiredPermission: "tickets:write" },
      });
    });

    test("shows the public only ticket types on sale now and asks tickets:read for the rest", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const open = await createTicketType(ctx.services, owner, project.id, { name: "Open" });
      const windowed = await createTicketType(ctx.services, owner, project.id, {
        name: "Windowed",
        salesStartAt: inHours(-1),
        salesEndAt: inHours(1),
      });
      const ended = await createTicketType(ctx.services, owner, project.id, {
        name: "Ended",
        salesEndAt: inHours(-1),
      });
      const future = await createTicketType(ctx.services, owner, project.id, {
        name: "Future",
        salesStartAt: inHours(1),
      });

      const publicAccess = await ctx.services.access.require(publicActor, project.id);
      const onSale = await ctx.services.tickets.listTicketTypes(publicAccess, {}, firstPage);
      assert.deepEqual(new Set(onSale.items.map((t) => t.id)), new Set([open.id, windowed.id]));
      assert.equal(await ctx.services.tickets.countTicketTypes(publicAccess, { onSaleOnly: true }), 2);
      assert.equal(await ctx.services.tickets.countTicketTypes(publicAccess, { onSaleOnly: null }), 2);
      await assert.rejects(
        ctx.services.tickets.listTicketTypes(publicAccess, { onSaleOnly: false }, firstPage),
        {
          code: "FORBIDDEN",
          details: { requiredPermission: "tickets:read" },
        },
      );
      await assert.rejects(ctx.services.tickets.countTicketTypes(publicAccess, { onSaleOnly: false }), {
        code: "FORBIDDEN",
      });
      assert.equal(await ctx.services.tickets.findTicketType(publicActor, future.id), undefined);
      assert.equal(await ctx.services.tickets.findTicketType(publicActor, ended.id), undefined);
      assert.equal((await ctx.services.tickets.findTicketType(publicActor, open.id))?.item.name, "Open");

      const reader = appActor(project.id, ["tickets:read"]);
      const readerAccess = await ctx.services.access.require(reader, project.id);
      const all = await ctx.services.tickets.listTicketTypes(readerAccess, { onSaleOnly: false }, firstPage);
      assert.equal(all.items.length, 4);
      assert.equal(await ctx.services.tickets.countTicketTypes(readerAccess, { onSaleOnly: false }), 4);
      assert.equal((await ctx.services.tickets.findTicketType(reader, future.id))?.item.name, "Future");
    });

    test("pages ticket types forward and backward in creation order", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const created = [];
      for (let i = 0; i < 5; i++)
        created.push(await createTicketType(ctx.services, owner, project.id, { name: `T${i}` }));
      // Two types created in the same millisecond are ordered by id, as the keyset is.
      const ids = created
        .sort((a, b) =>
          a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
        )
        .map((t) => t.id);
      const access = await ctx.services.access.require(owner, project.id);
      const list = async (args: Parameters<typeof resolvePageArgs>[0]) =>
        ctx.services.tickets.listTicketTypes(access, {}, resolvePageArgs(args));
      const first = await list({ first: 3 });
      assert.deepEqual(
        first.items.map((t) => t.id),
        ids.slice(0, 3),
      );
      const rest = await list({ first: 3, after: first.endCursor });
      assert.deepEqual(
        rest.items.map((t) => t.id),
        ids.slice(3),
      );
      assert.equal(rest.hasNextPage, false);
      const back = await list({ last: 2, before: rest.startCursor });
      assert.deepEqual(
        back.items.map((t) => t.id),
        ids.slice(1, 3),
      );
      assert.equal(back.hasPreviousPage, true);
      assert.equal(await ctx.services.tickets.countTicketTypes(access, {}), 5);
    });

    test("loads ticket types and sold counts for many ids in one statement each", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const a = await createTicketType(ctx.services, owner, project.id);
      const b = await createTicketType(ctx.services, owner, project.id);
      await createAttendee(ctx.services, owner, project.id, a.id);
      const cancelled = await createAttendee(ctx.services, owner, project.id, a.id);
      await createAttendee(ctx.services, owner, project.id, a.id);
      await ctx.services.attendees.cancelAttendee(owner, { id: cancelled.id });

      ctx.statements.length = 0;
      const sold = await ctx.services.tickets.soldCounts([a.id, b.id]);
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual([sold.get(a.id), sold.get(b.id)], [2, 0]);

      ctx.statements.length = 0;
      const types = await ctx.services.tickets.ticketTypesByIds([a.id, b.id, "missing"]);
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual([...types.keys()].sort(), [a.id, b.id].sort());
      assert.equal(types.get(a.id)?.currency, "EUR");
    });
  });
}
