import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createProject, createPublishedProject, createSession } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`agenda writes (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects an end not after the start, bad colors, negative capacities and bad URLs", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const agenda = ctx.services.agenda;
      // Untyped callers (the CLI's JSON, a form) can send any text as the status.
      const untyped: Record<string, unknown> = { status: "LIVE" };
      await rejectsWithFieldErrors(
        agenda.createSession(owner, {
          projectId: project.id,
          title: "  ",
          startsAt: "2026-05-04T10:00:00Z",
          endsAt: "tomorrow",
          capacity: -1,
          ...untyped,
        }),
        ["title", "endsAt", "capacity", "status"],
      );
      await rejectsWithFieldErrors(
        agenda.createSession(owner, {
          projectId: project.id,
          title: "Backwards",
          startsAt: "2026-05-04T10:00:00Z",
          endsAt: "2026-05-04T10:00:00Z",
        }),
        ["endsAt"],
      );
      await rejectsWithFieldErrors(
        agenda.createSession(owner, {
          projectId: project.id,
          title: "Twice",
          startsAt: "2026-05-04T10:00:00Z",
          endsAt: "2026-05-04T11:00:00Z",
          speakerIds: ["a", "a"],
        }),
        ["speakerIds"],
      );
      await rejectsWithFieldErrors(
        agenda.createTrack(owner, { projectId: project.id, name: "T", color: "red" }),
        ["color"],
      );
      await rejectsWithFieldErrors(
        agenda.createRoom(owner, { projectId: project.id, name: "R", capacity: 2.5 }),
        ["capacity"],
      );
      await rejectsWithFieldErrors(
        agenda.createSpeaker(owner, {
          projectId: project.id,
          name: "S",
          photoUrl: "javascript:alert(1)",
          links: [{ label: "", url: "ftp://x" }],
        }),
        ["photoUrl", "links.0.label", "links.0.url"],
      );
      const session = await createSession(ctx.services, owner, project.id);
      await rejectsWithFieldErrors(
        agenda.updateSession(owner, { id: session.id, endsAt: "2026-05-04T08:00:00Z" }),
        ["endsAt"],
      );
    });

    test("refuses rooms, tracks and speakers of another project by id, as not found in this project", async () => {
      const { project, owner, ownerId } = await createPublishedProject(ctx.services);
      // The same organizer owns both projects, so only the project boundary can refuse the ids.
      const { project: other } = await createProject(ctx.services, { ownerId });
      const room = await ctx.services.agenda.createRoom(owner, { projectId: other.id, name: "Elsewhere" });
      const track = await ctx.services.agenda.createTrack(owner, { projectId: other.id, name: "Elsewhere" });
      const speaker = await ctx.services.agenda.createSpeaker(owner, {
        projectId: other.id,
        name: "Elsewhere",
      });
      const mine = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "Mine" });
      await assert.rejects(
        createSession(ctx.services, owner, project.id, {
          roomId: room.id,
          trackId: track.id,
          speakerIds: [mine.id, speaker.id],
        }),
        (error: { code: string; details: { fieldErrors: { field: string[]; message: string }[] } }) => {
          assert.equal(error.code, "BAD_USER_INPUT");
          assert.deepEqual(
            error.details.fieldErrors.map((e) => e.field.join(".")),
            ["roomId", "trackId", "speakerIds"],
          );
          for (const e of error.details.fieldErrors) assert.match(e.message, /not found in this project/);
          return true;
        },
      );
      const session = await createSession(ctx.services, owner, project.id);
      await rejectsWithFieldErrors(
        ctx.services.agenda.updateSession(owner, { id: session.id, roomId: room.id }),
        ["roomId"],
      );
    });

    test("replaces a session's speakers, keeps sessions when their track or room goes, and announces each write", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const changed: string[] = [];
      const unsubscribe = ctx.services.changes.subscribe((id) => changed.push(id));
      try {
        const a = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "A" });
        const b = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "B" });
        const track = await ctx.services.agenda.createTrack(owner, { projectId: project.id, name: "T" });
        const room = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "R" });
        const session = await createSession(ctx.services, owner, project.id, {
          speakerIds: [a.id],
          trackId: track.id,
          roomId: room.id,
        });
        const updated = await ctx.services.agenda.updateSession(owner, {
          id: session.id,
          title: "Renamed",
          speakerIds: [b.id, a.id],
          status: "PUBLISHED",
        });
        assert.equal(updated.title, "Renamed");
        assert.equal(updated.trackId, track.id);
        assert.deepEqual(
          (await ctx.services.agenda.speakersBySessionIds([session.id])).get(session.id)?.map((s) => s.id),
          [b.id, a.id],
        );
        await ctx.services.agenda.deleteTrack(owner, { id: track.id });
        await ctx.services.agenda.deleteRoom(owner, { id: room.id });
        await ctx.services.agenda.deleteSpeaker(owner, { id: b.id });
        const after = await ctx.services.agenda.findSession(owner, session.id);
        assert.equal(after?.item.trackId, null);
        assert.equal(after?.item.roomId, null);
        assert.deepEqual(
          (await ctx.services.agenda.speakersBySessionIds([session.id])).get(session.id)?.map((s) => s.id),
          [a.id],
        );
        const speaker = await ctx.services.agenda.updateSpeaker(owner, {
          id: a.id,
          company: "ACME",
          bio: "",
        });
        assert.deepEqual([speaker.company, speaker.bio], ["ACME", null]);
        const renamedRoom = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "S" });
        assert.equal(
          (await ctx.services.agenda.updateRoom(owner, { id: renamedRoom.id, capacity: 10 })).capacity,
          10,
        );
        await ctx.services.agenda.deleteSession(owner, { id: session.id });
        assert.equal(await ctx.services.agenda.findSession(owner, session.id), undefined);
        assert.equal(changed.length, 13);
        assert.ok(changed.every((id) => id === project.id));
      } finally {
        unsubscribe();
      }
    });
  });
}
