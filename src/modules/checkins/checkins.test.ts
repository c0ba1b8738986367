import assert from "node:assert/strict";
import { describe, test } from "node:test";
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
import type { Services } from "../../services.js";
import type { Actor } from "../access/actor.js";

async function registered(services: Services) {
  const { project, owner, ownerId } = await createPublishedProject(services);
  const ticketType = await createTicketType(services, owner, project.id);
  const attendee = await createAttendee(services, owner, project.id, ticketType.id);
  return { project, owner, ownerId, ticketType, attendee };
}

for (const engine of testEngines()) {
  describe(`checkins (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("refuses to check in a cancelled attendee", async () => {
      const { owner, attendee } = await registered(ctx.services);
      await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
      await assert.rejects(ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id }), {
        code: "BAD_USER_INPUT",
        details: {
          fieldErrors: [{ field: ["attendeeId"], message: "is cancelled and cannot be checked in" }],
        },
      });
      await assert.rejects(ctx.services.checkins.checkIn(owner, { attendeeId: "" }), {
        code: "BAD_USER_INPUT",
      });
    });

    test("answers NOT_FOUND for another project's attendee and FORBIDDEN without checkins:write", async () => {
      const { project, attendee } = await registered(ctx.services);
      const stranger = userActor((await createUser(ctx.services)).id);
      const foreignApp = appActor((await createProject(ctx.services)).project.id, [
        "checkins:write",
        "attendees:read",
      ]);
      const blind = appActor(project.id, ["agenda:read"]);
      for (const actor of [stranger, foreignApp, blind] as Actor[]) {
        await assert.rejects(ctx.services.checkins.checkIn(actor, { attendeeId: attendee.id }), {
          code: "NOT_FOUND",
          message: "Attendee not found",
        });
        await assert.rejects(ctx.services.checkins.undoCheckIn(actor, { attendeeId: attendee.id }), {
          code: "NOT_FOUND",
        });
      }
      await assert.rejects(ctx.services.checkins.checkIn(stranger, { attendeeId: "no-such-attendee" }), {
        code: "NOT_FOUND",
      });
      const reader = appActor(project.id, ["attendees:read", "attendees:write"]);
      await assert.rejects(ctx.services.checkins.checkIn(reader, { attendeeId: attendee.id }), {
        code: "FORBIDDEN",
        details: { requiredPermission: "checkins:write" },
      });
    });

    test("checks in once however often it is asked, recording the organizer or the app", async () => {
      const { project, ownerId, owner, ticketType, attendee } = await registered(ctx.services);
      const changed: string[] = [];
      const unsubscribe = ctx.services.changes.subscribe((id) => changed.push(id));
      try {
        const first = await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
        const second = await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
        assert.equal(second.checkIn?.id, first.checkIn?.id);
        assert.deepEqual([first.checkIn?.byUserId, first.checkIn?.byAppId], [ownerId, null]);
        assert.equal(first.attendee.id, attendee.id);
        // The repeat changed nothing, so it announced nothing: cached answers stay.
        assert.deepEqual(changed, [project.id]);
      } finally {
        unsubscribe();
      }
      // An app with checkins:write alone may check in by id, and is named as the one who did.
      const door = appActor(project.id, ["checkins:write"]);
      const guest = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      const byApp = await ctx.services.checkins.checkIn(door, { attendeeId: guest.id });
      assert.equal(byApp.checkIn?.byUserId, null);
      assert.equal(byApp.checkIn?.byAppId, door.kind === "app" ? door.appId : undefined);
    });

    test("leaves exactly one active check-in when check-ins race", async () => {
      const { owner, attendee } = await registered(ctx.services);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id })),
      );
      assert.equal(new Set(results.map((r) => r.checkIn?.id)).size, 1);
      const history = (await ctx.services.checkins.historyByAttendeeIds([attendee.id])).get(attendee.id);
      assert.equal(history?.length, 1);
    });

    test("never leaves a cancelled attendee checked in when check-ins race cancellations", async () => {
      const { project, owner, ticketType } = await registered(ctx.services);
      const people = await Promise.all(
        Array.from({ length: 12 }, () => createAttendee(ctx.services, owner, project.id, ticketType.id)),
      );
      // Each attendee's check-in and cancellation are sent at once; whichever locks the attendee
      // first, a cancellation leaves no active check-in behind.
      const outcomes = await Promise.allSettled(
        people.flatMap((person) => [
          ctx.services.checkins.checkIn(owner, { attendeeId: person.id }),
          ctx.services.attendees.cancelAttendee(owner, { id: person.id }),
        ]),
      );
      const refused = outcomes.filter((o) => o.status === "rejected");
      for (const o of refused) assert.equal((o.reason as { code?: string }).code, "BAD_USER_INPUT");
      const active = await ctx.services.checkins.activeByAttendeeIds(people.map((p) => p.id));
      assert.equal(active.size, 0, `${active.size} cancelled attendees are still checked in`);
      const histories = await ctx.services.checkins.historyByAttendeeIds(people.map((p) => p.id));
      const checkedInFirst = [...histories.values()].filter((h) => h.length === 1 && h[0]?.undoneAt).length;
      assert.equal(checkedInFirst + refused.length, people.length);
    });

    test("undoes a check-in idempotently and keeps the history of check-ins", async () => {
      const { owner, attendee } = await registered(ctx.services);
      const never = await ctx.services.checkins.undoCheckIn(owner, { attendeeId: attendee.id });
      assert.equal(never.checkIn, null);
      const first = await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      const undone = await ctx.services.checkins.undoCheckIn(owner, { attendeeId: attendee.id });
      assert.equal(undone.checkIn?.id, first.checkIn?.id);
      assert.ok(undone.checkIn?.undoneAt);
      const again = await ctx.services.checkins.undoCheckIn(owner, { attendeeId: attendee.id });
      assert.deepEqual(again.checkIn, undone.checkIn);
      assert.equal((await ctx.services.checkins.activeByAttendeeIds([attendee.id])).has(attendee.id), false);

      const second = await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      assert.notEqual(second.checkIn?.id, first.checkIn?.id);
      const history = (await ctx.services.checkins.historyByAttendeeIds([attendee.id])).get(attendee.id);
      const active = new Map(history?.map((c) => [c.id, c.undoneAt === null]));
      assert.deepEqual(
        [active.size, active.get(first.checkIn?.id ?? ""), active.get(second.checkIn?.id ?? "")],
        [2, false, true],
      );
    });

    test("loads active check-ins and histories of many attendees in one statement each", async () => {
      const { project, owner, ticketType, attendee } = await registered(ctx.services);
      const other = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      const absent = await createAttendee(ctx.services, owner, project.id, ticketType.id);
      await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      await ctx.services.checkins.checkIn(owner, { attendeeId: other.id });

      ctx.statements.length = 0;
      const active = await ctx.services.checkins.activeByAttendeeIds([attendee.id, other.id, absent.id]);
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual([...active.keys()].sort(), [attendee.id, other.id].sort());
      assert.equal(active.get(other.id)?.attendeeId, other.id);

      ctx.statements.length = 0;
      const history = await ctx.services.checkins.historyByAttendeeIds([attendee.id, absent.id]);
      assert.equal(ctx.statements.length, 1);
      assert.equal(history.get(attendee.id)?.length, 1);
      assert.deepEqual(history.get(absent.id), []);
    });
  });
}
