import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createSession } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";

const firstPage = resolvePageArgs({ first: 100 });

for (const engine of testEngines()) {
  describe(`agenda lists: filters, pages and batches (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("filters sessions by track and room", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const track = await ctx.services.agenda.createTrack(owner, {
        projectId: project.id,
        name: "Web",
        color: "#aabbcc",
      });
      const room = await ctx.services.agenda.createRoom(owner, {
        projectId: project.id,
        name: "Hall",
        capacity: 300,
      });
      assert.equal(track.color, "#AABBCC");
      const inBoth = await createSession(ctx.services, owner, project.id, {
        status: "PUBLISHED",
        trackId: track.id,
        roomId: room.id,
      });
      await createSession(ctx.services, owner, project.id, { status: "PUBLISHED", trackId: track.id });
      await createSession(ctx.services, owner, project.id, { status: "PUBLISHED" });
      const access = await ctx.services.access.require(publicActor, project.id);
      assert.equal(await ctx.services.agenda.countSessions(access, { trackId: track.id }), 2);
      // GraphQL passes omitted arguments as null: they mean the default, not "nothing".
      assert.equal(
        await ctx.services.agenda.countSessions(access, { statuses: null, trackId: null, roomId: null }),
        3,
      );
      const cleared = await ctx.services.agenda.updateSession(owner, { id: inBoth.id, speakerIds: null });
      assert.equal(cleared.trackId, track.id);
      const page = await ctx.services.agenda.listSessions(
        access,
        { trackId: track.id, roomId: room.id },
        firstPage,
      );
      assert.deepEqual(
        page.items.map((s) => s.id),
        [inBoth.id],
      );
    });

    test("pages sessions forward and backward with cursors and counts them", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ids: string[] = [];
      for (let hour = 9; hour < 14; hour++) {
        const s = await createSession(ctx.services, owner, project.id, {
          status: "PUBLISHED",
          startsAt: `2026-05-04T${String(hour).padStart(2, "0")}:00:00.000Z`,
        });
        ids.push(s.id);
      }
      const access = await ctx.services.access.require(publicActor, project.id);
      const list = async (args: Parameters<typeof resolvePageArgs>[0]) =>
        ctx.services.agenda.listSessions(access, {}, resolvePageArgs(args));

      const first = await list({ first: 2 });
      assert.deepEqual(
        first.items.map((s) => s.id),
        ids.slice(0, 2),
      );
      assert.equal(first.hasNextPage, true);
      assert.equal(first.hasPreviousPage, false);
      const second = await list({ first: 2, after: first.endCursor });
      assert.deepEqual(
        second.items.map((s) => s.id),
        ids.slice(2, 4),
      );
      const third = await list({ first: 2, after: second.endCursor });
      assert.deepEqual(
        third.items.map((s) => s.id),
        ids.slice(4),
      );
      assert.equal(third.hasNextPage, false);

      const last = await list({ last: 2 });
      assert.deepEqual(
        last.items.map((s) => s.id),
        ids.slice(3),
      );
      assert.equal(last.hasPreviousPage, true);
      const before = await list({ last: 2, before: last.startCursor });
      assert.deepEqual(
        before.items.map((s) => s.id),
        ids.slice(1, 3),
      );
      assert.equal(before.hasNextPage, true);
      assert.equal(await ctx.services.agenda.countSessions(access, {}), 5);
      await assert.rejects(list({ first: 2, after: "not-a-cursor" }), { code: "BAD_USER_INPUT" });
    });

    test("pages tracks and rooms by name", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      for (const name of ["Room C", "Room A", "Room B"]) {
        await ctx.services.agenda.createRoom(owner, { projectId: project.id, name });
        await ctx.services.agenda.createTrack(owner, {
          projectId: project.id,
          name: name.replace("Room", "Track"),
        });
      }
      const access = await ctx.services.access.require(publicActor, project.id);
      const rooms = await ctx.services.agenda.listRooms(access, resolvePageArgs({ first: 2 }));
      assert.deepEqual(
        rooms.items.map((r) => r.name),
        ["Room A", "Room B"],
      );
      const more = await ctx.services.agenda.listRooms(
        access,
        resolvePageArgs({ first: 2, after: rooms.endCursor }),
      );
      assert.deepEqual(
        more.items.map((r) => r.name),
        ["Room C"],
      );
      const tracks = await ctx.services.agenda.listTracks(access, resolvePageArgs({ last: 1 }));
      assert.deepEqual(
        tracks.items.map((t) => t.name),
        ["Track C"],
      );
      assert.equal(await ctx.services.agenda.countRooms(access), 3);
      assert.equal(await ctx.services.agenda.countTracks(access), 3);
    });

    test("loads rooms, tracks, speakers and sessions for many parents in one statement each", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const a = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "A" });
      const b = await ctx.services.agenda.createSpeaker(owner, { projectId: project.id, name: "B" });
      const room = await ctx.services.agenda.createRoom(owner, { projectId: project.id, name: "R" });
      const track = await ctx.services.agenda.createTrack(owner, { projectId: project.id, name: "T" });
      const early = await createSession(ctx.services, owner, project.id, {
        status: "PUBLISHED",
        speakerIds: [b.id, a.id],
        startsAt: "2026-05-04T09:00:00Z",
      });
      const late = await createSession(ctx.services, owner, project.id, {
        status: "PUBLISHED",
        speakerIds: [a.id],
        startsAt: "2026-05-04T15:00:00Z",
      });
      const draft = await createSession(ctx.services, owner, project.id, { speakerIds: [a.id] });

      ctx.statements.length = 0;
      const speakers = await ctx.services.agenda.speakersBySessionIds([
        early.id,
        late.id,
        draft.id,
        "missing",
      ]);
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual(
        speakers.get(early.id)?.map((s) => s.name),
        ["B", "A"],
      );
      assert.deepEqual(
        speakers.get(late.id)?.map((s) => s.name),
        ["A"],
      );
      assert.deepEqual(speakers.get("missing"), []);

      ctx.statements.length = 0;
      const sessions = await ctx.services.agenda.sessionsBySpeakerIds([a.id, b.id], {
        statuses: ["PUBLISHED"],
      });
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual(
        sessions.get(a.id)?.map((s) => s.id),
        [early.id, late.id],
      );
      assert.deepEqual(
        sessions.get(b.id)?.map((s) => s.id),
        [early.id],
      );

      ctx.statements.length = 0;
      const rooms = await ctx.services.agenda.roomsByIds([room.id, "missing"]);
      const tracks = await ctx.services.agenda.tracksByIds([track.id]);
      assert.equal(ctx.statements.length, 2);
      assert.equal(rooms.get(room.id)?.name, "R");
      assert.equal(rooms.has("missing"), false);
      assert.equal(tracks.get(track.id)?.name, "T");
    });
  });
}
