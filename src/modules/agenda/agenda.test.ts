import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createProject,
  createPublishedProject,
  createSession,
  createUser,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";

const firstPage = resolvePageArgs({ first: 100 });

for (const engine of testEngines()) {
  describe(`agenda (${engine.name})`, () => {
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

    test("answers NOT_FOUND for rows of a project the caller cannot see or is not linked to, FORBIDDEN without agenda:write", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const session = await createSession(ctx.services, owner, project.id, { status: "PUBLISHED" });
      const draft = await createSession(ctx.services, owner, project.id);
      const track = await ctx.services.agenda.createTrack(owner, { projectId: project.id, name: "Main" });
      const stranger = userActor((await createUser(ctx.services)).id);
      await assert.rejects(ctx.services.agenda.updateSession(stranger, { id: session.id, title: "X" }), {
        code: "NOT_FOUND",
        message: "Session not found",
      });
      await assert.rejects(ctx.services.agenda.deleteTrack(stranger, { id: track.id }), {
        code: "NOT_FOUND",
      });
      await assert.rejects(
        ctx.services.agenda.createRoom(stranger, { projectId: project.id, name: "Sneaky" }),
        {
          code: "NOT_FOUND",
        },
      );
      assert.equal(await ctx.services.agenda.findSession(stranger, session.id), undefined);
      // An app of another project sees this published project as the public does: never its drafts,
      // and never a write, whatever it holds in its own project; it is told the project is not
      // linked to it, not that it lacks a permission it holds.
      const foreignApp = appActor((await createProject(ctx.services)).project.id, [
        "agenda:write",
        "agenda:read",
      ]);
      await assert.rejects(ctx.services.agenda.updateSession(foreignApp, { id: draft.id, title: "X" }), {
        code: "NOT_FOUND",
      });
      await assert.rejects(ctx.services.agenda.updateSession(foreignApp, { id: session.id, title: "X" }), {
        code: "NOT_FOUND",
        message: /not linked to this app/,
      });
      await assert.rejects(
        ctx.services.agenda.createRoom(foreignApp, { projectId: project.id, name: "Sneaky" }),
        {
          code: "NOT_FOUND",
        },
      );
      assert.equal(await ctx.services.agenda.findSession(foreignApp, draft.id), undefined);
      await assert.rejects(ctx.services.agenda.updateSession(owner, { id: "no-such-id", title: "X" }), {
        code: "NOT_FOUND",
      });
      // A reader may see the draft, so it learns which permission is missing.
      const reader = appActor(project.id, ["agenda:read"]);
      await assert.rejects(ctx.services.agenda.updateSession(reader, { id: draft.id, title: "X" }), {
        code: "FORBIDDEN",
        details: { requiredPermission: "agenda:write" },
      });
      await assert.rejects(ctx.services.agenda.createTrack(reader, { projectId: project.id, name: "T" }), {
        code: "FORBIDDEN",
        details: { requiredPermission: "agenda:write" },
      });
      // The public cannot see a draft at all: its id must not be confirmed by a FORBIDDEN.
      await assert.rejects(ctx.services.agenda.deleteSession(publicActor, { id: draft.id }), {
        code: "NOT_FOUND",
      });
      await assert.rejects(ctx.services.agenda.deleteSession(publicActor, { id: session.id }), {
        code: "FORBIDDEN",
      });
    });

    test("shows the public only published sessions and asks agenda:read for the others", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const published = await createSession(ctx.services, owner, project.id, {
        status: "PUBLISHED",
        title: "On",
      });
      const draft = await createSession(ctx.services, owner, project.id, { title: "Draft" });
      const cancelled = await createSession(ctx.services, owner, project.id, { status: "CANCELLED" });
      const publicAccess = await ctx.services.access.require(publicActor, project.id);
      const withoutRead = await ctx.services.access.require(
        appActor(project.id, ["tickets:read"]),
        project.id,
      );
      for (const access of [publicAccess, withoutRead]) {
        const page = await ctx.services.agenda.listSessions(access, {}, firstPage);
        assert.deepEqual(
          page.items.map((s) => s.id),
          [published.id],
        );
        assert.equal(await ctx.services.agenda.countSessions(access, {}), 1);
        await assert.rejects(ctx.services.agenda.listSessions(access, { statuses: ["DRAFT"] }, firstPage), {
          code: "FORBIDDEN",
          details: { requiredPermission: "agenda:read" },
        });
        await assert.rejects(
          ctx.services.agenda.countSessions(access, { statuses: ["PUBLISHED", "CANCELLED"] }),
          {
            code: "FORBIDDEN",
          },
        );
      }
      assert.equal(await ctx.services.agenda.findSession(publicActor, draft.id), undefined);
      assert.equal((await ctx.services.agenda.findSession(publicActor, published.id))?.item.title, "On");

      const reader = appActor(project.id, ["agenda:read"]);
      const readerAccess = await ctx.services.access.require(reader, project.id);
      const all = await ctx.services.agenda.listSessions(
        readerAccess,
        { statuses: ["DRAFT", "PUBLISHED", "CANCELLED"] },
        firstPage,
      );
      assert.deepEqual(new Set(all.items.map((s) => s.id)), new Set([published.id, draft.id, cancelled.id]));
      assert.equal(await ctx.services.agenda.countSessions(readerAccess, { statuses: ["DRAFT"] }), 1);
      const found = await ctx.services.agenda.findSession(reader, draft.id);
      assert.equal(found?.item.status, "DRAFT");
      assert.equal(found?.access.projectId, project.id);

      // A draft project is invisible to the public altogether.
      const { project: hidden, ownerId } = await createProject(ctx.services);
      const hiddenSession = await createSession(ctx.services, userActor(ownerId), hidden.id, {
        status: "PUBLISHED",
      });
      assert.equal(await ctx.services.agenda.findSession(publicActor, hiddenSession.id), undefined);
    });

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

    test("lists only speakers of published sessions unless includeUnpublished is asked with agenda:read", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const onStage = await ctx.services.agenda.createSpeaker(owner, {
        projectId: project.id,
        name: "Ada",
        links: [{ label: "Site", url: "https://ada.example" }],
      });
      const backstage = await ctx.services.agenda.createSpeaker(owner, {
        projectId: project.id,
        name: "Bob",
      });
      await createSession(ctx.services, owner, project.id, { status: "PUBLISHED", speakerIds: [onStage.id] });
      await createSession(ctx.services, owner, project.id, { speakerIds: [backstage.id, onStage.id] });
      const publicAccess = await ctx.services.access.require(publicActor, project.id);
      const page = await ctx.services.agenda.listSpeakers(publicAccess, {}, firstPage);
      assert.deepEqual(
        page.items.map((s) => [s.name, s.links]),
        [["Ada", [{ label: "Site", url: "https://ada.example" }]]],
      );
      assert.equal(await ctx.services.agenda.countSpeakers(publicAccess, {}), 1);
      await assert.rejects(
        ctx.services.agenda.listSpeakers(publicAccess, { includeUnpublished: true }, firstPage),
        {
          code: "FORBIDDEN",
          details: { requiredPermission: "agenda:read" },
        },
      );
      assert.equal(await ctx.services.agenda.findSpeaker(publicActor, backstage.id), undefined);
      assert.equal((await ctx.services.agenda.findSpeaker(publicActor, onStage.id))?.item.name, "Ada");

      const ownerAccess = await ctx.services.access.require(owner, project.id);
      const all = await ctx.services.agenda.listSpeakers(
        ownerAccess,
        { includeUnpublished: true },
        firstPage,
      );
      assert.deepEqual(
        all.items.map((s) => s.name),
        ["Ada", "Bob"],
      );
      assert.equal(await ctx.services.agenda.countSpeakers(ownerAccess, { includeUnpublished: true }), 2);
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
