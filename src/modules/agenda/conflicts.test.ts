import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createSession } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { publicActor } from "../access/actor.js";

const at = (time: string) => `2026-05-04T${time}:00.000Z`;

for (const engine of testEngines()) {
  describe(`agenda conflicts (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    async function conference() {
      const { project, owner } = await createPublishedProject(ctx.services);
      // Europe/Berlin: the event runs on 4 and 5 May local time.
      const updated = await ctx.services.projects.update(owner, project.id, {
        startsAt: "2026-05-04T07:00:00.000Z",
        endsAt: "2026-05-05T16:00:00.000Z",
      });
      const access = await ctx.services.access.require(owner, project.id);
      const conflicts = async () => ctx.services.agenda.agendaConflicts(access, updated, new Map());
      return { project: updated, owner, conflicts };
    }

    test("a clean agenda has none; touching sessions and different rooms do not clash", async () => {
      const { project, owner, conflicts } = await conference();
      const hall = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Hall" });
      const lab = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Lab" });
      const ada = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "Ada" });
      await createSession(ctx.services, owner, project.id, {
        startsAt: at("09:00"),
        roomId: hall.id,
        speakerIds: [ada.id],
      });
      // Starts exactly when the first ends (09:45), same room and speaker.
      await createSession(ctx.services, owner, project.id, {
        startsAt: at("09:45"),
        roomId: hall.id,
        speakerIds: [ada.id],
      });
      await createSession(ctx.services, owner, project.id, { startsAt: at("09:15"), roomId: lab.id });
      assert.deepEqual(await conflicts(), []);
    });

    test("finds a room used twice at once, a speaker in two overlapping sessions, and a session outside the dates", async () => {
      const { project, owner, conflicts } = await conference();
      const hall = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Hall" });
      const lab = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Lab" });
      const ada = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "Ada" });
      const keynote = await createSession(ctx.services, owner, project.id, {
        title: "Keynote",
        startsAt: at("09:00"),
        roomId: hall.id,
        speakerIds: [ada.id],
      });
      const panel = await createSession(ctx.services, owner, project.id, {
        title: "Panel",
        startsAt: at("09:30"),
        roomId: hall.id,
      });
      const workshop = await createSession(ctx.services, owner, project.id, {
        title: "Workshop",
        startsAt: at("09:40"),
        roomId: lab.id,
        speakerIds: [ada.id],
      });
      // 6 May in Berlin: the day after the event.
      const late = await createSession(ctx.services, owner, project.id, {
        title: "Afterparty",
        startsAt: "2026-05-06T08:00:00.000Z",
      });
      // Cancelled sessions never conflict.
      await createSession(ctx.services, owner, project.id, {
        startsAt: at("09:00"),
        roomId: hall.id,
        speakerIds: [ada.id],
        status: "CANCELLED",
      });

      const found = await conflicts();
      const summary = found.map((c) => `${c.kind} ${c.sessionId} ${c.otherSessionId ?? ""}`).sort();
      assert.deepEqual(
        summary,
        [
          `OUTSIDE_EVENT_DATES ${late.id} `,
          `ROOM_DOUBLE_BOOKED ${keynote.id} ${panel.id}`,
          `ROOM_DOUBLE_BOOKED ${panel.id} ${keynote.id}`,
          `SPEAKER_DOUBLE_BOOKED ${keynote.id} ${workshop.id}`,
          `SPEAKER_DOUBLE_BOOKED ${workshop.id} ${keynote.id}`,
        ].sort(),
      );
      const speakerClash = found.find((c) => c.kind === "SPEAKER_DOUBLE_BOOKED");
      assert.equal(speakerClash?.speakerId, ada.id);
      assert.match(speakerClash?.message ?? "", /Ada speaks in/);
    });

    // Issue 39: the grid reads one day of some rooms; the clashes it shows must be those a reading of
    // the whole programme finds for the sessions it shows.
    test("one day of some rooms: its sessions, and their clashes with other rooms and the day before", async () => {
      const { project, owner } = await conference();
      const access = await ctx.services.access.require(owner, project.id);
      const hall = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Hall" });
      const lab = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "Lab" });
      const ada = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "Ada" });
      // 4 May, 23:30 to 00:15 on 5 May in Berlin: it overlaps the first session of 5 May in the hall.
      const late = await createSession(ctx.services, owner, project.id, {
        startsAt: "2026-05-04T21:30:00.000Z",
        roomId: hall.id,
      });
      const early = await createSession(ctx.services, owner, project.id, {
        startsAt: "2026-05-04T22:00:00.000Z",
        roomId: hall.id,
        speakerIds: [ada.id],
      });
      const elsewhere = await createSession(ctx.services, owner, project.id, {
        startsAt: "2026-05-04T22:30:00.000Z",
        roomId: lab.id,
        speakerIds: [ada.id],
      });
      const day = await ctx.services.agenda.loadAgendaDay(access, project, {
        day: "2026-05-05",
        roomIds: [hall.id],
        noRoom: false,
      });
      assert.deepEqual(day.days, ["2026-05-04", "2026-05-05"]);
      assert.equal(day.day, "2026-05-05");
      assert.deepEqual(
        day.sessions.map((s) => s.id),
        [early.id],
      );
      const of = (id: string) =>
        day.conflicts
          .filter((c) => c.sessionId === id)
          .map((c) => `${c.kind} ${c.otherSessionId}`)
          .sort();
      const whole = await ctx.services.agenda.agendaConflicts(access, project, new Map());
      const wholeOf = (id: string) =>
        whole
          .filter((c) => c.sessionId === id)
          .map((c) => `${c.kind} ${c.otherSessionId}`)
          .sort();
      assert.deepEqual(of(early.id), [
        `ROOM_DOUBLE_BOOKED ${late.id}`,
        `SPEAKER_DOUBLE_BOOKED ${elsewhere.id}`,
      ]);
      assert.deepEqual(of(early.id), wholeOf(early.id));
      const first = await ctx.services.agenda.loadAgendaDay(access, project, {
        roomIds: [lab.id],
        noRoom: true,
      });
      assert.equal(first.day, "2026-05-04");
      assert.deepEqual(first.sessions, []);
    });

    test("are organizer data: the public cannot read a project's conflicts", async () => {
      const { project } = await createPublishedProject(ctx.services);
      const access = await ctx.services.access.require(publicActor, project.id);
      await assert.rejects(
        ctx.services.agenda.agendaConflicts(access, { ...project }, new Map()),
        (error: unknown) => (error as { code?: string }).code === "FORBIDDEN",
      );
    });
  });
}
