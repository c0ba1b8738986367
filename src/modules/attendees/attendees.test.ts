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
  uniqueEmail,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { AppError } from "../../errors.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";

const firstPage = resolvePageArgs({ first: 100 });

// Registrations in the same millisecond are ordered by id, as the keyset is.
function inListOrder(...attendees: { id: string; registeredAt: string }[]): string[] {
  return attendees
    .sort((a, b) =>
      a.registeredAt === b.registeredAt ? (a.id < b.id ? -1 : 1) : a.registeredAt < b.registeredAt ? -1 : 1,
    )
    .map((a) => a.id);
}

function conflictOn(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, "CONFLICT");
    assert.deepEqual(
      error.details.fieldErrors?.map((e) => e.field.join(".")),
      [field],
    );
    return true;
  };
}

for (const engine of testEngines()) {
  describe(`attendees (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects a bad email, an empty name and a missing ticket type", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      await rejectsWithFieldErrors(
        ctx.services.attendees.registerAttendee(owner, {
          projectId: project.id,
          name: " ",
          email: "not-an-email",
          ticketTypeId: "",
        }),
        ["name", "email", "ticketTypeId"],
      );
    });

    test("refuses a ticket type of another project as not found in this project", async () => {
      const { project, owner, ownerId } = await createPublishedProject(ctx.services);
      const { project: other } = await createProject(ctx.services, { ownerId });
      const foreign = await createTicketType(ctx.services, owner, other.id);
      await assert.rejects(createAttendee(ctx.services, owner, project.id, foreign.id), {
        code: "BAD_USER_INPUT",
        details: {
          fieldErrors: [{ field: ["ticketTypeId"], message: "ticket type not found in this project" }],
        },
      });
      const mine = await createTicketType(ctx.services, owner, project.id);
      const attendee = await createAttendee(ctx.services, owner, project.id, mine.id);
      await rejectsWithFieldErrors(
        ctx.services.attendees.updateAttendee(owner, { id: attendee.id, ticketTypeId: foreign.id }),
        ["ticketTypeId"],
      );
    });

    test("answers NOT_FOUND for another project's attendees and FORBIDDEN without attendees:write", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id);
      const attendee = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      const stranger = userActor((await createUser(ctx.services)).id);
      const foreignApp = appActor((await createProject(ctx.services)).project.id, [
        "attendees:read",
        "attendees:write",
      ]);
      for (const actor of [stranger, foreignApp, publicActor]) {
        await assert.rejects(ctx.services.attendees.cancelAttendee(actor, { id: attendee.id }), {
          code: "NOT_FOUND",
          message: "Attendee not found",
        });
        await assert.rejects(ctx.services.attendees.updateAttendee(actor, { id: attendee.id, name: "X" }), {
          code: "NOT_FOUND",
        });
        assert.equal(await ctx.services.attendees.findAttendee(actor, attendee.id), undefined);
      }
      await assert.rejects(createAttendee(ctx.services, stranger, project.id, ticketType.id), {
        code: "NOT_FOUND",
      });
      const reader = appActor(project.id, ["attendees:read"]);
      await assert.rejects(ctx.services.attendees.cancelAttendee(reader, { id: attendee.id }), {
        code: "FORBIDDEN",
        details: { requiredPermission: "attendees:write" },
      });
      await assert.rejects(createAttendee(ctx.services, reader, project.id, ticketType.id), {
        code: "FORBIDDEN",
        details: { requiredPermission: "attendees:write" },
      });
      // Attendees are personal data: a writer without attendees:read may not look them up.
      assert.equal(
        await ctx.services.attendees.findAttendee(appActor(project.id, ["attendees:write"]), attendee.id),
        undefined,
      );
      assert.equal(
        (await ctx.services.attendees.findAttendee(reader, attendee.id))?.item.email,
        attendee.email,
      );
    });

    test("finds many attendees by id in the order asked, each as findAttendee would, none of another project", async () => {
      const { project, owner, ownerId } = await createPublishedProject(ctx.services);
      const { project: other } = await createProject(ctx.services, { ownerId });
      const mine = await createTicketType(ctx.services, owner, project.id);
      const theirs = await createTicketType(ctx.services, owner, other.id);
      const a = await createAttendee(ctx.services, owner, project.id, mine.id);
      const b = await createAttendee(ctx.services, owner, project.id, mine.id);
      const elsewhere = await createAttendee(ctx.services, owner, other.id, theirs.id);
      const ids = [b.id, "unknown", elsewhere.id, a.id];
      const found = async (actor: Parameters<typeof ctx.services.attendees.findAttendees>[0]) =>
        (await ctx.services.attendees.findAttendees(actor, ids)).map((f) => f?.item.id);
      // The app reaches its home project only, and reads attendees only with attendees:read.
      assert.deepEqual(await found(appActor(project.id, ["attendees:write"])), [
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      assert.deepEqual(await found(appActor(project.id, ["attendees:read"])), [
        b.id,
        undefined,
        undefined,
        a.id,
      ]);
      assert.deepEqual(await found(owner), [b.id, undefined, elsewhere.id, a.id]);
    });

    test("never lists attendees without attendees:read, not even to the project's other apps or the public", async () => {
      const { project } = await createPublishedProject(ctx.services);
      for (const actor of [
        publicActor,
        appActor(project.id, ["attendees:write", "agenda:read", "tickets:read"]),
      ]) {
        const access = await ctx.services.access.require(actor, project.id);
        await assert.rejects(ctx.services.attendees.listAttendees(access, {}, firstPage), {
          code: "FORBIDDEN",
          details: { requiredPermission: "attendees:read" },
        });
        await assert.rejects(ctx.services.attendees.countAttendees(access, {}), { code: "FORBIDDEN" });
      }
    });

    test("sells no more seats than the quantity, even to concurrent registrations", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id, { quantity: 3 });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => createAttendee(ctx.services, owner, project.id, ticketType.id)),
      );
      const ok = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected");
      assert.equal(ok.length, 3);
      for (const r of refused) conflictOn("ticketTypeId")(r.reason);
      assert.equal((await ctx.services.tickets.soldCounts([ticketType.id])).get(ticketType.id), 3);
    });

    test("registrations and orders racing for one ticket type all go through: none is a deadlock's victim", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const door = await createTicketType(ctx.services, owner, project.id, {
        quantity: 40,
        paymentMode: "AT_DOOR",
      });
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          i % 2 === 0
            ? createAttendee(ctx.services, owner, project.id, door.id)
            : ctx.services.orders.placeOrder(publicActor, {
                projectId: project.id,
                buyerName: `Buyer ${i}`,
                buyerEmail: uniqueEmail("buyer"),
                tickets: [{ ticketTypeId: door.id, name: `Buyer ${i}`, email: uniqueEmail("ticket") }],
              }),
        ),
      );
      assert.deepEqual(
        results.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : [])),
        [],
      );
      assert.equal((await ctx.services.tickets.soldCounts([door.id])).get(door.id), 30);
    });

    test("allows one active registration per email, case-insensitively and under concurrency", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id);
      const other = await createTicketType(ctx.services, owner, project.id);
      const address = uniqueEmail("dup");
      const first = await createAttendee(ctx.services, owner, project.id, ticketType.id, { email: address });
      await assert.rejects(
        createAttendee(ctx.services, owner, project.id, other.id, { email: address.toUpperCase() }),
        conflictOn("email"),
      );
      // Racing registrations on different ticket types do not share a lock; the unique index decides.
      const racing = uniqueEmail("race");
      const results = await Promise.allSettled([
        createAttendee(ctx.services, owner, project.id, ticketType.id, { email: racing }),
        createAttendee(ctx.services, owner, project.id, other.id, { email: racing }),
        createAttendee(ctx.services, owner, project.id, ticketType.id, { email: racing }),
      ]);
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results) if (r.status === "rejected") conflictOn("email")(r.reason);

      const second = await createAttendee(ctx.services, owner, project.id, other.id, {
        email: uniqueEmail(),
      });
      await assert.rejects(
        ctx.services.attendees.updateAttendee(owner, { id: second.id, email: address }),
        conflictOn("email"),
      );
      // A cancelled registration frees the email.
      await ctx.services.attendees.cancelAttendee(owner, { id: first.id });
      const again = await createAttendee(ctx.services, owner, project.id, other.id, { email: address });
      assert.notEqual(again.id, first.id);
    });

    test("moves an attendee to another ticket type only when it has a seat left", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const standard = await createTicketType(ctx.services, owner, project.id);
      const vip = await createTicketType(ctx.services, owner, project.id, { quantity: 1 });
      await createAttendee(ctx.services, owner, project.id, vip.id);
      const attendee = await createAttendee(ctx.services, owner, project.id, standard.id, {
        company: "ACME",
      });
      await assert.rejects(
        ctx.services.attendees.updateAttendee(owner, { id: attendee.id, ticketTypeId: vip.id }),
        conflictOn("ticketTypeId"),
      );
      await ctx.services.tickets.updateTicketType(owner, { id: vip.id, quantity: 2 });
      const moved = await ctx.services.attendees.updateAttendee(owner, {
        id: attendee.id,
        ticketTypeId: vip.id,
        name: "Grace Hopper",
        company: null,
      });
      assert.deepEqual([moved.ticketTypeId, moved.name, moved.company], [vip.id, "Grace Hopper", null]);
    });

    test("cancels idempotently, keeping the row, freeing the seat and undoing the check-in", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id, { quantity: 1 });
      const attendee = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      const cancelled = await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
      assert.equal(cancelled.status, "CANCELLED");
      assert.ok(cancelled.cancelledAt);
      const changed: string[] = [];
      const unsubscribe = ctx.services.changes.subscribe((id) => changed.push(id));
      try {
        const again = await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
        assert.equal(again.cancelledAt, cancelled.cancelledAt);
        assert.deepEqual(changed, [], "cancelling again changes nothing, so it announces nothing");
      } finally {
        unsubscribe();
      }
      assert.equal((await ctx.services.checkins.activeByAttendeeIds([attendee.id])).size, 0);
      const history = (await ctx.services.checkins.historyByAttendeeIds([attendee.id])).get(attendee.id);
      assert.equal(history?.[0]?.undoneAt, cancelled.cancelledAt);
      assert.equal((await ctx.services.attendees.findAttendee(owner, attendee.id))?.item.status, "CANCELLED");
      // The one seat is free again.
      await createAttendee(ctx.services, owner, project.id, ticketType.id);
    });

    test("searches names, emails and companies case-insensitively, filters, and pages with a total", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const standard = await createTicketType(ctx.services, owner, project.id);
      const vip = await createTicketType(ctx.services, owner, project.id);
      // Fixed emails (unique within this new project): random ones could contain "ada" by chance.
      const ada = await createAttendee(ctx.services, owner, project.id, standard.id, {
        name: "Ada Lovelace",
        email: "ada@analytical.example",
      });
      const grace = await createAttendee(ctx.services, owner, project.id, vip.id, {
        name: "Grace Hopper",
        email: "grace@COBOL.example",
        company: "US Navy",
      });
      const percent = await createAttendee(ctx.services, owner, project.id, standard.id, {
        name: "100% Sure",
        email: "sure@example.test",
      });
      const gone = await createAttendee(ctx.services, owner, project.id, standard.id, {
        name: "Ada Gone",
        email: "gone@example.test",
      });
      await ctx.services.attendees.cancelAttendee(owner, { id: gone.id });

      const access = await ctx.services.access.require(appActor(project.id, ["attendees:read"]), project.id);
      const ids = async (filter: Parameters<typeof ctx.services.attendees.listAttendees>[1]) =>
        (await ctx.services.attendees.listAttendees(access, filter, firstPage)).items.map((a) => a.id);
      assert.deepEqual(await ids({ search: "ADA" }), inListOrder(ada, gone));
      assert.deepEqual(await ids({ search: "cobol" }), [grace.id]);
      assert.deepEqual(await ids({ search: "00%" }), [percent.id]);
      assert.deepEqual(await ids({ search: "e_t" }), []);
      assert.deepEqual(await ids({ search: "us navy" }), [grace.id]);
      assert.deepEqual(await ids({ search: 'a"b' }), []);
      // A field boundary is not text: the end of a name and the start of the email do not join.
      assert.deepEqual(await ids({ search: "lacead" }), []);
      assert.deepEqual(await ids({ search: "  " }), inListOrder(ada, grace, percent, gone));
      assert.deepEqual(await ids({ search: "ada", status: "REGISTERED" }), [ada.id]);
      assert.deepEqual(await ids({ ticketTypeId: vip.id }), [grace.id]);
      assert.equal(await ctx.services.attendees.countAttendees(access, { status: "CANCELLED" }), 1);
      assert.equal(await ctx.services.attendees.countAttendees(access, { search: "ada" }), 2);
      // Shorter terms would need a scan of every attendee: the index works on trigrams.
      await assert.rejects(ids({ search: "ad" }), (e: AppError) => e.code === "BAD_USER_INPUT");

      const all = inListOrder(ada, grace, percent, gone);
      const page1 = await ctx.services.attendees.listAttendees(access, {}, resolvePageArgs({ first: 3 }));
      assert.deepEqual(
        page1.items.map((a) => a.id),
        all.slice(0, 3),
      );
      assert.equal(page1.hasNextPage, true);
      const page2 = await ctx.services.attendees.listAttendees(
        access,
        {},
        resolvePageArgs({ first: 3, after: page1.endCursor }),
      );
      assert.equal(page2.hasNextPage, false);
      assert.deepEqual(
        page2.items.map((a) => a.id),
        all.slice(3),
      );
      const back = await ctx.services.attendees.listAttendees(
        access,
        {},
        resolvePageArgs({ last: 2, before: page2.startCursor }),
      );
      assert.deepEqual(
        back.items.map((a) => a.id),
        all.slice(1, 3),
      );
      assert.equal(await ctx.services.attendees.countAttendees(access, {}), 4);
      assert.equal(
        await ctx.services.attendees.countAttendees(access, {
          search: null,
          status: null,
          ticketTypeId: null,
        }),
        4,
      );
    });
  });
}
