import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sqliteEngine, testEngines } from "../../test/helpers/engines.js";
import {
  createApp,
  createAttendee,
  createProject,
  createSession,
  createTicketType,
  userActor,
} from "../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { allAreas, areaBit } from "./data-areas.js";
import { type DomainEvent, ProjectChanges } from "./project-changes.js";

for (const engine of testEngines()) {
  describe(`domain events (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    /** Runs `work` with a recorder attached and answers the events it saw for `projectId`. */
    async function eventsOf(projectId: () => string, work: () => Promise<unknown>): Promise<DomainEvent[]> {
      const seen: DomainEvent[] = [];
      const remove = ctx.services.changes.addRecorder(async (_trx, _actor, event) => {
        seen.push(event);
      });
      try {
        await work();
      } finally {
        remove();
      }
      return seen.filter((e) => e.projectId === projectId());
    }

    test("a rolled-back write records no event, and a failing recorder rolls the write back", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const ticketType = await createTicketType(ctx.services, owner, project.id, { quantity: 1 });
      await createAttendee(ctx.services, owner, project.id, ticketType.id);
      const events = await eventsOf(
        () => project.id,
        () => assert.rejects(createAttendee(ctx.services, owner, project.id, ticketType.id)),
      );
      assert.deepEqual(events, []);

      const remove = ctx.services.changes.addRecorder(async () => {
        throw new Error("outbox down");
      });
      try {
        await assert.rejects(
          ctx.services.projects.update(owner, project.id, { name: "Renamed" }),
          /outbox down/,
        );
      } finally {
        remove();
      }
      assert.equal((await ctx.services.projects.get(owner, project.id)).name, "Test Conference");
    });

    test("every kind of write says what it did, with the fields an update changed", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const { app } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      let ids: Record<string, string> = {};
      const events = await eventsOf(
        () => project.id,
        async () => {
          await ctx.services.projects.update(owner, project.id, { name: "Renamed", website: null });
          const track = await ctx.services.agenda.createTrack(owner, { projectId: project.id, name: "Main" });
          await ctx.services.agenda.updateTrack(owner, { id: track.id, color: "#ff0000" });
          const room = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Hall" });
          await ctx.services.agenda.deleteRoom(owner, { id: room.id });
          const speaker = await ctx.services.agenda.createSpeaker(owner, {
            projectId: project.id,
            name: "Ada",
          });
          const session = await createSession(ctx.services, owner, project.id);
          await ctx.services.agenda.updateSession(owner, {
            id: session.id,
            title: "New",
            speakerIds: [speaker.id],
          });
          await ctx.services.agenda.deleteSession(owner, { id: session.id });
          await ctx.services.agenda.updateSpeaker(owner, { id: speaker.id, bio: "b" });
          await ctx.services.agenda.deleteSpeaker(owner, { id: speaker.id });
          const ticketType = await createTicketType(ctx.services, owner, project.id);
          await ctx.services.tickets.updateTicketType(owner, { id: ticketType.id, quantity: 50 });
          const attendee = await createAttendee(ctx.services, owner, project.id, ticketType.id);
          await ctx.services.attendees.updateAttendee(owner, { id: attendee.id, company: "ACME" });
          await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
          await ctx.services.checkins.checkIn(owner, { attendeeId: attendee.id });
          await ctx.services.checkins.undoCheckIn(owner, { attendeeId: attendee.id });
          await ctx.services.checkins.undoCheckIn(owner, { attendeeId: attendee.id });
          await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
          await ctx.services.attendees.cancelAttendee(owner, { id: attendee.id });
          const second = await createTicketType(ctx.services, owner, project.id, { name: "Spare" });
          await ctx.services.tickets.deleteTicketType(owner, { id: second.id });
          await ctx.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
          await ctx.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
          await ctx.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
          await ctx.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
          ids = {
            track: track.id,
            room: room.id,
            speaker: speaker.id,
            session: session.id,
            attendee: attendee.id,
          };
        },
      );
      assert.deepEqual(
        events.map((e) => e.type),
        [
          "project.updated",
          "track.created",
          "track.updated",
          "room.created",
          "room.deleted",
          "speaker.created",
          "session.created",
          "session.updated",
          "session.deleted",
          "speaker.updated",
          "speaker.deleted",
          "ticket_type.created",
          "ticket_type.updated",
          "attendee.registered",
          "attendee.updated",
          "checkin.created",
          "checkin.undone",
          "attendee.cancelled",
          "ticket_type.created",
          "ticket_type.deleted",
          "app.link.created",
          "app.link.updated",
          "app.link.revoked",
        ],
      );
      const { before: was, row: now, ...updated } = events[0] ?? {};
      assert.deepEqual(updated, {
        projectId: project.id,
        type: "project.updated",
        object: { typename: "Project", id: project.id },
        changed: ["name", "website"],
      });
      // The row as it was and as the write left it, for the audit log's before → after.
      assert.equal(was?.name, "Test Conference");
      assert.equal(now?.name, "Renamed");
      assert.deepEqual(events[2]?.object, { typename: "Track", id: ids.track });
      assert.deepEqual(events[2]?.changed, ["color"]);
      assert.deepEqual(events[7]?.changed, ["title", "speakerIds"]);
      assert.deepEqual(events[15]?.object, { typename: "Attendee", id: ids.attendee });
      assert.equal(events[20]?.object.typename, "AppLink");
      assert.equal(events[21]?.object.id, events[20]?.object.id);
    });
  });
}

// PostgreSQL's fence (db/change-feed.ts `heardEverywhere`) is what a write waits for; here a recording
// stands in for it, over a real database, to pin which writes wait and when.
describe("which writes wait until every process has heard of them", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(sqliteEngine);
  });
  after(() => ctx.close());

  async function stepsOf(write: (changes: ProjectChanges) => Promise<unknown>): Promise<string[]> {
    const steps: string[] = [];
    const changes = new ProjectChanges(
      async () => {},
      async () => {
        steps.push("heard everywhere");
      },
    );
    changes.subscribe(() => steps.push("told this process"));
    await write(changes);
    return steps;
  }

  // The write's own work is beside the point here.
  const work = async () => {};

  test("a change of the project area waits, after its commit and this process's listeners", async () => {
    const db = ctx.services.database.db;
    assert.deepEqual(await stepsOf((changes) => changes.write(db, undefined, "p1", work, areaBit.project)), [
      "told this process",
      "heard everywhere",
    ]);
    assert.deepEqual(await stepsOf((changes) => changes.write(db, undefined, "p1", work)), [
      "told this process",
      "heard everywhere",
    ]);
    assert.deepEqual(await stepsOf((changes) => changes.announceRecorded("p1", "p2")), [
      "told this process",
      "told this process",
      "heard everywhere",
    ]);
  });

  test("a data write does not wait, nor does a new project", async () => {
    const db = ctx.services.database.db;
    assert.deepEqual(
      await stepsOf((changes) =>
        changes.write(db, undefined, "p1", work, areaBit.checkins | areaBit.attendees),
      ),
      ["told this process"],
    );
    assert.deepEqual(
      await stepsOf((changes) =>
        changes.write(db, undefined, "p1", work, allAreas, { takesNothingAway: true }),
      ),
      ["told this process"],
    );
  });
});
