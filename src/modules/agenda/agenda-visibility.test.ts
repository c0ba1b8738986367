import assert from "node:assert/strict";
import { describe, test } from "node:test";
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
  describe(`who sees which agenda rows (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

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
  });
}
